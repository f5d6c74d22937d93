/// Names threads the package starts, for the kernel (ps, gdb, /proc show the
/// name): the sibling modules' threads name themselves through it.
package enum ThreadName {
    /// Names the calling thread `name`, cut to the 15 bytes a Linux thread name holds.
    package static func setCurrent(_ name: String) {
        SystemCalls.nameCurrentThread(name)
    }
}
