#!/usr/bin/env python3
"""Writes the hand-made PDF fixtures of pdf_test.go: python3 make.py (standard library only).

invoice.pdf comes from groff: groff -ms -mpdf -Tpdf invoice.ms > invoice.pdf
"""
import hashlib
import struct
import zlib

# The padding string of the standard security handler (PDF 1.7, 7.6.3.3).
PAD = bytes.fromhex("28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A")


def rc4(key, data):
    s = list(range(256))
    j = 0
    for i in range(256):
        j = (j + s[i] + key[i % len(key)]) % 256
        s[i], s[j] = s[j], s[i]
    out = bytearray()
    i = j = 0
    for b in data:
        i = (i + 1) % 256
        j = (j + s[i]) % 256
        s[i], s[j] = s[j], s[i]
        out.append(b ^ s[(s[i] + s[j]) % 256])
    return bytes(out)


def write(path, objects, trailer):
    """objects: {number: bytes of the object's body}; numbers from 1 up without gaps."""
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = {}
    for n in sorted(objects):
        offsets[n] = len(out)
        out += b"%d 0 obj\n" % n + objects[n] + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for n in sorted(objects):
        out += b"%010d 00000 n \n" % offsets[n]
    out += b"trailer\n" + trailer % (len(objects) + 1) + b"\nstartxref\n%d\n%%%%EOF\n" % xref
    open(path, "wb").write(out)


def stream(data, extra=b""):
    return b"<< /Length %d %s>>\nstream\n" % (len(data), extra) + data + b"\nendstream"


def text(s):
    return b"BT /F1 12 Tf 72 720 Td (" + s + b") Tj ET"


FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"


def page(content, parent=2):
    return b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents %d 0 R >>" % (parent, content)


def encrypted():
    """RC4 40-bit, revision 2, user password "secret", owner password "owner"."""
    user, owner, perms = b"secret", b"owner", -4
    file_id = hashlib.md5(b"packfs-mcp encrypted fixture").digest()
    o = rc4(hashlib.md5((owner + PAD)[:32]).digest()[:5], (user + PAD)[:32])  # Algorithm 3
    key = hashlib.md5((user + PAD)[:32] + o + struct.pack("<i", perms) + file_id).digest()[:5]  # Algorithm 2
    u = rc4(key, PAD)  # Algorithm 4

    def crypt(num, data):  # Algorithm 1
        return rc4(hashlib.md5(key + struct.pack("<I", num)[:3] + b"\0\0").digest()[:10], data)

    body = crypt(4, text(b"The vault code is 4711."))
    title = crypt(6, b"Sealed")
    objects = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        3: page(4),
        4: stream(body),
        5: FONT,
        6: b"<< /Title <" + title.hex().encode() + b"> >>",
        7: b"<< /Filter /Standard /V 1 /R 2 /O <" + o.hex().encode() + b"> /U <" + u.hex().encode() + b"> /P %d >>" % perms,
    }
    idhex = file_id.hex().encode()
    write("encrypted.pdf", objects, b"<< /Size %d /Root 1 0 R /Info 6 0 R /Encrypt 7 0 R /ID [<" + idhex + b"> <" + idhex + b">] >>")


def loop():
    """A page tree whose second kid is its own root again, claiming a million pages."""
    objects = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [3 0 R 6 0 R] /Count 1000000 >>",
        3: page(4),
        4: stream(text(b"Only this page is real.")),
        5: FONT,
        6: b"<< /Type /Pages /Parent 2 0 R /Kids [2 0 R 6 0 R] /Count 999999 >>",
    }
    write("loop.pdf", objects, b"<< /Size %d /Root 1 0 R >>")


def ghosts():
    """A page tree that claims a million pages and holds one."""
    objects = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [3 0 R 6 0 R] /Count 1000000 >>",
        3: page(4),
        4: stream(text(b"The one page there is.")),
        5: FONT,
        6: b"<< /Type /Pages /Parent 2 0 R /Kids [] /Count 999999 >>",
    }
    write("ghosts.pdf", objects, b"<< /Size %d /Root 1 0 R >>")


def spin():
    """A page that draws a form of a million "q Q" a hundred thousand times: hours of parsing."""
    objects = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        3: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Fm 6 0 R >> >> /Contents 4 0 R >>",
        4: stream(zlib.compress(b"/Fm Do " * 100_000, 9), b"/Filter /FlateDecode "),
        5: FONT,
        6: stream(zlib.compress(b"q Q " * 1_000_000, 9), b"/Type /XObject /Subtype /Form /BBox [0 0 1 1] /Filter /FlateDecode "),
    }
    write("spin.pdf", objects, b"<< /Size %d /Root 1 0 R >>")


def bomb():
    """A content stream that inflates to 512 MiB of zeros, deflated twice to stay small."""
    z = zlib.compressobj(9)
    chunk = bytes(1 << 20)
    once = b"".join(z.compress(chunk) for _ in range(512)) + z.flush()
    twice = zlib.compress(once, 9)
    objects = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        3: page(4),
        4: stream(twice, b"/Filter [/FlateDecode /FlateDecode] "),
        5: FONT,
    }
    write("bomb.pdf", objects, b"<< /Size %d /Root 1 0 R >>")


if __name__ == "__main__":
    encrypted()
    loop()
    ghosts()
    spin()
    bomb()
