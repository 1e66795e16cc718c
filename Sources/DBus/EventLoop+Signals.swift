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
        let status = pthread_sigmask(SIG_BLOCK, &mask, nil)  // returns the error, not -1
        guard status == 0 else { throw SystemCall.Failure(call: "pthread_sigmask", errno: status).error }
        let fd = try SystemCall.run("signalfd") { signalfd(-1, &mask, Int32(SFD_CLOEXEC) | Int32(SFD_NONBLOCK)) }
        do throws(DBusError) {
            _ = try addDescriptor(fd, events: .readable) { _ in
                var info = signalfd_siginfo()
                let size = MemoryLayout<signalfd_siginfo>.size
                // Until EAGAIN: every pending signal, each once.
                while (try? SystemCall.checked("read of the signalfd") { read(fd, &info, size) }) == size {
                    handler(Int32(info.ssi_signo))
                }
            }
        } catch {
            close(fd)
            throw error
        }
    }
}
