#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LoomSupport

/// Loads each model file once per process and shares it: every engine and executor that asks for
/// the same file gets the same `Model` (one mapping), and the mapping goes away when the last of
/// them lets go (ARC is the reference count; the store holds only weak references).
///
/// A file is identified by path, device, inode, size and modification time, so a file replaced
/// on disk (a rename over it) loads fresh while existing users keep the old mapping.
public final class ModelStore: Sendable {
    /// The process-wide store.
    public static let shared = ModelStore()

    /// What makes two loads the same file.
    public struct FileIdentity: Hashable, Sendable {
        /// The path as given.
        public var path: String
        /// Device and inode: a replaced file is a different file.
        public var device: UInt64, inode: UInt64
        /// Size in bytes.
        public var size: Int64
        /// Modification time in nanoseconds since the epoch.
        public var modificationTime: Int64

        /// The identity of the file at `path` now.
        public init(path: String) throws(ModelLoadError) {
            var st = stat()
            guard stat(path, &st) == 0 else {
                throw .unreadable(path: path, reason: String(cString: strerror(errno)))
            }
            self.path = path
            device = UInt64(st.st_dev)
            inode = UInt64(st.st_ino)
            size = Int64(st.st_size)
            #if canImport(Darwin)
            modificationTime = Int64(st.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(st.st_mtimespec.tv_nsec)
            #else
            modificationTime = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
            #endif
        }
    }

    private struct Entry {
        weak var model: Model?
    }

    private let entries = Locked<[FileIdentity: Entry]>([:])

    /// An empty store (tests use their own; the library uses `shared`).
    public init() {}

    /// The loaded model for the file at `path`, loading it if no one holds it.
    public func model(path: String) throws(ModelLoadError) -> Model {
        let identity = try FileIdentity(path: path)
        return try entries.withLock { (entries) throws(ModelLoadError) -> Model in
            if let model = entries[identity]?.model { return model }
            // Loading under the lock means two callers racing for one file map it once.
            let model = try Model(path: path)
            entries = entries.filter { $0.value.model != nil }
            entries[identity] = Entry(model: model)
            return model
        }
    }

    /// Files currently loaded through this store (for diagnostics and tests).
    public var loadedCount: Int {
        entries.withLock { $0.values.count(where: { $0.model != nil }) }
    }
}
