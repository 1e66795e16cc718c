import CLinux
import Glibc

extension EventLoop {
    /// Delivers the given Unix signals to `handler` on the loop thread,
    /// through a signalfd, instead of as asynchronous interrupts.
    ///
    /// Call this before any other thread starts: the signals are blocked in
    /// the calling thread and the threads it creates afterwards.
    public func handleSignals(_ signals: [Int32], _ handler: @escaping (Int32) -> Void) throws(DBusError) {
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in signals { sigaddset(&mask, signal) }
        guard pthread_sigmask(SIG_BLOCK, &mask, nil) == 0 else { throw Self.systemError("pthread_sigmask") }
        let fd = signalfd(-1, &mask, Int32(SFD_CLOEXEC) | Int32(SFD_NONBLOCK))
        guard fd >= 0 else { throw Self.systemError("signalfd") }
        _ = addDescriptor(fd, events: .readable) { _ in
            var info = signalfd_siginfo()
            while read(fd, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
                handler(Int32(info.ssi_signo))
            }
        }
    }
}
