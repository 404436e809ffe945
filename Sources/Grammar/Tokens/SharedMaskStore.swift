import LoomSupport

/// A thread-safe map from a context-free state key to its mask (content strings without
/// patterns look the same in every schema, so their masks are computed once per vocabulary).
final class SharedMaskStore: Sendable {
    private let masks = Locked<[[Int32]: [UInt64]]>([:])
    static let maxEntries = 4096

    init() {}

    func copy(_ key: [Int32], into out: UnsafeMutablePointer<UInt64>) -> Bool {
        masks.withLock { masks in
            guard let m = masks[key] else { return false }
            m.withUnsafeBufferPointer { out.update(from: $0.baseAddress!, count: $0.count) }
            return true
        }
    }

    func store(_ key: [Int32], _ mask: UnsafeMutablePointer<UInt64>, words: Int) {
        masks.withLock { masks in
            if masks.count < SharedMaskStore.maxEntries {
                masks[key] = Array(UnsafeBufferPointer(start: mask, count: words))
            }
        }
    }
}
