// C's `stdout` is a mutable global to Swift 6; stdio locks it itself, so reading the pointer is safe.
@preconcurrency import Glibc

extension HarnessExit {
    static var standardOutputStream: UnsafeMutablePointer<FILE> { stdout }
}
