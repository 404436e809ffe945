#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Loading one block: found by name, checked (size, header, the tokens asked for, payload
/// checksum) before a byte of it is used, and touched so eviction sees it was used.
extension PromptCacheStore {
    /// Reads the block with prefix hash `chain` (after `parent`, holding `tokens`) into
    /// `payload` (`identity.blockBytes`) and returns true, or returns false when there is no
    /// such file or it is rejected (counted, warned; `payload` then holds nothing usable).
    func restore(parent: UInt64, chain: UInt64, tokens: UnsafeBufferPointer<Int32>,
                 into payload: UnsafeMutableRawBufferPointer) -> Bool {
        precondition(payload.count == identity.blockBytes && tokens.count == identity.blockSize)
        let name = identity.fileName(chain: chain)
        let fd = open(directory + "/" + name, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let failure = errno
            if failure == ENOENT {
                state.withLock { $0.statistics.misses += 1 }
            } else {
                reject(name, .unreadable(errno: failure))
            }
            return false
        }
        defer { closeDescriptor(fd) }
        let headerSize = PromptCacheFile.headerBytes(blockSize: identity.blockSize)
        let header = UnsafeMutableRawBufferPointer.allocate(byteCount: headerSize, alignment: 8)
        defer { header.deallocate() }
        do throws(PromptCacheRejection) {
            var st = stat()
            guard fstat(fd, &st) == 0 else { throw .unreadable(errno: errno) }
            let read = try Self.readAll(fd, header, at: 0)
            let decoded = try PromptCacheFile.decode(UnsafeRawBufferPointer(rebasing: header[0..<read]), expected: identity)
            guard Int(st.st_size) == headerSize + identity.blockBytes else { throw .truncated }
            guard decoded.parent == parent, decoded.chain == chain, decoded.tokens.elementsEqual(tokens) else {
                throw .differentPrefix
            }
            guard try Self.readAll(fd, payload, at: headerSize) == payload.count else { throw .truncated }
            guard ContentHash.hash(UnsafeRawBufferPointer(payload)) == decoded.payloadChecksum else { throw .checksumMismatch }
        } catch {
            reject(name, error)
            return false
        }
        // The modification time is the eviction order: a block in use is the last to go.
        futimens(fd, nil)
        state.withLock { s in
            s.statistics.hits += 1
            s.known.insert(name)
        }
        return true
    }

    /// Reads up to `buffer.count` bytes at `offset`; fewer only at the end of the file.
    private static func readAll(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(PromptCacheRejection) -> Int {
        var done = 0
        while done < buffer.count {
            let n = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                throw .unreadable(errno: errno)
            }
            if n == 0 { break }
            done += n
        }
        return done
    }
}
