"""Greets whoever reads this workspace."""


def greet(name: str) -> str:
    return f"hello, {name}, from the sample workspace"


if __name__ == "__main__":
    print(greet("reader"))
