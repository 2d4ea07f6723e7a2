// The one place catctl's modules get Foundation from. On Linux that is FoundationEssentials
// (Data, URL, FileManager, ProcessInfo, JSONDecoder...) without the ICU data and the
// classes of full Foundation, which made the static binary 57 MB; on Apple's systems it is
// Foundation. The C library comes with it, as it did with Foundation.
#if canImport(FoundationEssentials)
    @_exported import FoundationEssentials
#else
    @_exported import Foundation
#endif
#if canImport(Glibc)
    @_exported import Glibc
#elseif canImport(Darwin)
    @_exported import Darwin
#endif

/// Whether `path` names a folder (links followed). FileManager's `isDirectory:` takes a
/// Bool on Linux's FoundationEssentials and an ObjCBool on Apple's systems.
public func isDirectory(atPath path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
}
