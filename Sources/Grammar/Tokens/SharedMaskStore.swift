#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A thread-safe map from a context-free state key to its mask (content strings without
/// patterns look the same in every schema, so their masks are computed once per vocabulary).
final class SharedMaskStore: @unchecked Sendable {
    // @unchecked: all access goes through `lock`.
    private var lock = pthread_mutex_t()
    private var masks: [[Int32]: [UInt64]] = [:]
    static let maxEntries = 4096

    init() { pthread_mutex_init(&lock, nil) }
    deinit { pthread_mutex_destroy(&lock) }

    func copy(_ key: [Int32], into out: UnsafeMutablePointer<UInt64>) -> Bool {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        guard let m = masks[key] else { return false }
        m.withUnsafeBufferPointer { out.update(from: $0.baseAddress!, count: $0.count) }
        return true
    }

    func store(_ key: [Int32], _ mask: UnsafeMutablePointer<UInt64>, words: Int) {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        if masks.count < SharedMaskStore.maxEntries {
            masks[key] = Array(UnsafeBufferPointer(start: mask, count: words))
        }
    }
}
