package security_test

import "runtime"

const isWindows = runtime.GOOS == "windows"
