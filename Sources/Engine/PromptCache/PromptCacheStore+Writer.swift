#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LoomSupport

/// The writer thread: takes queued blocks in order, writes each under a temporary name, flushes
/// it to disk and renames it into place, then trims the directory when it has outgrown its budget.
extension PromptCacheStore {
    func writeLoop() {
        while true {
            let next = state.wait(until: { !$0.queue.isEmpty || $0.stopping }) { s, _ -> Job? in
                guard !s.queue.isEmpty else { return nil }
                s.writing = true
                return s.queue.removeFirst()
            }
            guard let job = next else { break }
            let written = writeFile(job, serial: Self.serials.withLock { n -> Int in
                n += 1
                return n
            })
            let overBudget = state.withLock { s -> Bool in
                s.queuedBytes -= job.payload.count
                if let written {
                    s.statistics.writes += 1
                    s.statistics.bytes += written
                } else {
                    s.known.remove(job.name)
                }
                return s.statistics.bytes > budgetBytes
            }
            if overBudget { evict() }
            // Idle only once the directory is trimmed: `flush` returns to a directory within budget.
            state.withLockSignalling { $0.writing = false }
        }
        state.withLockSignalling { $0.threadRunning = false }
    }

    /// Numbers temporary files uniquely within the process (with the process id, across
    /// processes), whichever store writes them.
    private static let serials = Locked(0)

    /// Writes one block's file; its size on success, nil (after a warning) on failure.
    private func writeFile(_ job: Job, serial: Int) -> Int? {
        let checksum = job.payload.withUnsafeBytes { ContentHash.hash($0) }
        let header = PromptCacheFile.encode(.init(identity: identity, parent: job.parent, chain: job.chain,
                                                  payloadChecksum: checksum, tokens: job.tokens))
        let final = directory + "/" + job.name
        let temporary = "\(directory)/.\(job.name).\(getpid()).\(serial)\(PromptCacheFile.partialSuffix)"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            warn("prompt cache: cannot create \(temporary) (errno \(errno))")
            return nil
        }
        let ok = Self.writeAll(fd, header) && Self.writeAll(fd, job.payload) && fsync(fd) == 0
        let failure = errno
        closeDescriptor(fd)
        guard ok, rename(temporary, final) == 0 else {
            warn("prompt cache: cannot write \(final) (errno \(ok ? errno : failure))")
            unlink(temporary)
            return nil
        }
        return header.count + job.payload.count
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let n = write(fd, buffer.baseAddress! + done, buffer.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                done += n
            }
            return true
        }
    }
}
