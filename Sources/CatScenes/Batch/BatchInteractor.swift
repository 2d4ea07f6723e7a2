import FilterCore
import Foundation
import ImageIO

/// The Batch use cases: list the inputs, edit one file (the Edit Cat use cases, reused).
public protocol BatchInteractorInput: Sendable {
    /// Files, folders (their images, sorted; at any depth when `recursive`, never inside
    /// `skipping`) and "-" (paths on stdin), in order.
    func expandInputs(_ inputs: [String], recursive: Bool, skipping: String?) async throws -> [BatchInput]
    func prepareOutputDirectory(_ directory: String) async throws
    /// Which of these files exist already.
    func existingFiles(_ paths: [String]) async -> Set<String>
    /// Edits one file (the Edit Cat use case), making the output's folders first; returns its megapixels.
    func process(_ input: String, to output: String, chain: FilterChain, options: EditOptions) async throws -> Double
}

public struct BatchInteractor: BatchInteractorInput {
    let edit: EditCatInteractor
    let readStandardInput: @Sendable () -> [String]

    /// `threads`: for the filters of one file (cores / jobs).
    public init(
        threads: Int, readStandardInput: @escaping @Sendable () -> [String] = BatchInteractor.standardInputLines
    ) {
        edit = EditCatInteractor(threads: threads)
        self.readStandardInput = readStandardInput
    }

    public static func standardInputLines() -> [String] {
        var lines: [String] = []
        while let line = readLine() {
            let path = line.trimmingCharacters(in: .whitespaces)
            if !path.isEmpty { lines.append(path) }
        }
        return lines
    }

    @concurrent
    public func expandInputs(_ inputs: [String], recursive: Bool, skipping: String?) async throws -> [BatchInput] {
        var out: [BatchInput] = []
        let skip = skipping.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        for input in inputs {
            if input == "-" {
                out += readStandardInput().map { BatchInput(path: $0) }
                continue
            }
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: input, isDirectory: &isDir), isDir.boolValue else {
                out.append(BatchInput(path: input))  // a missing file fails on its own, the others go on
                continue
            }
            let folder = input.hasSuffix("/") ? input : input + "/"
            out += Self.images(in: folder, recursive: recursive, skipping: skip).map {
                BatchInput(path: folder + $0, relativePath: $0)
            }
        }
        return out
    }

    /// The images in `folder` (paths relative to it, sorted), hidden files and folders
    /// left out; symbolic links to folders are not followed, so a walk always ends.
    static func images(in folder: String, recursive: Bool, skipping: String?) -> [String] {
        guard recursive else {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            return names.filter { !$0.hasPrefix(".") && ImageFormat(path: $0) != nil && !isDirectory(folder + $0) }
                .sorted()
        }
        var found: [String] = []
        guard let walk = FileManager.default.enumerator(atPath: folder) else { return [] }
        while let relative = walk.nextObject() as? String {
            let name = relative.split(separator: "/").last.map(String.init) ?? relative
            let path = folder + relative
            if isDirectory(path) {
                if name.hasPrefix(".") || URL(fileURLWithPath: path).standardizedFileURL.path == skipping {
                    walk.skipDescendants()
                }
                continue
            }
            if !name.hasPrefix(".") && ImageFormat(path: name) != nil { found.append(relative) }
        }
        return found.sorted()
    }

    static func isDirectory(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }

    @concurrent
    public func prepareOutputDirectory(_ directory: String) async throws {
        var isDir: ObjCBool = false
        if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDir) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw ImageIOError.cannotCreate(path: directory, reason: "cannot create the folder")
            }
        } else if !isDir.boolValue {
            throw ImageIOError.cannotCreate(path: directory, reason: "it is not a folder")
        }
        try OutputFile.checkCreatable(directory + "/x.png")
    }

    @concurrent
    public func existingFiles(_ paths: [String]) async -> Set<String> {
        Set(paths.filter { FileManager.default.fileExists(atPath: $0) })
    }

    @concurrent
    public func process(_ input: String, to output: String, chain: FilterChain, options: EditOptions) async throws
        -> Double
    {
        let folder = (output as NSString).deletingLastPathComponent
        if !folder.isEmpty && !Self.isDirectory(folder) {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw ImageIOError.cannotCreate(path: output, reason: "cannot create the folder \(folder)")
            }
        }
        return try await edit.edit(.file(input), to: output, chain: chain, options: options, events: { _ in })
            .megapixels
    }
}
