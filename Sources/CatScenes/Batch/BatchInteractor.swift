import FilterCore
import Foundation
import ImageIO

/// The Batch use cases: list the inputs, edit one file (the Edit Cat use cases, reused).
public protocol BatchInteractorInput: Sendable {
    /// Files and folders (their JPEG/PNG files, sorted) and "-" (paths on stdin), in order.
    func expandInputs(_ inputs: [String]) async throws -> [String]
    func prepareOutputDirectory(_ directory: String) async throws
    /// Edits one file (the Edit Cat use case); returns its megapixels.
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
    public func expandInputs(_ inputs: [String]) async throws -> [String] {
        var out: [String] = []
        for input in inputs {
            if input == "-" {
                out += readStandardInput()
                continue
            }
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: input, isDirectory: &isDir), isDir.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: input)) ?? []
                out += names.filter { !$0.hasPrefix(".") && ImageFormat(path: $0) != nil }.sorted()
                    .map { input.hasSuffix("/") ? input + $0 : input + "/" + $0 }
            } else {
                out.append(input)  // a missing file fails on its own, the others go on
            }
        }
        return out
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
    public func process(_ input: String, to output: String, chain: FilterChain, options: EditOptions) async throws
        -> Double
    {
        try await edit.edit(.file(input), to: output, chain: chain, options: options, events: { _ in }).megapixels
    }
}
