import CatImageIO

/// What a live scene's save prompt answered: the path (trimmed) and the format its
/// extension names, or the usage failure to show. One rule for Load Cat and Edit Cat.
enum SavePath {
    static func parse(_ answer: String) -> Result<(path: String, format: ImageFormat), SceneFailure> {
        let path = answer.trimmingWhitespace()
        guard !path.isEmpty, path != "-" else {
            return .failure(SceneFailure(status: .usage, message: "give a file name to save to"))
        }
        guard let format = ImageFormat(path: path) else {
            return .failure(
                SceneFailure(
                    status: .usage, message: "unknown output extension in '\(path)' (use \(ImageFormat.extensionList))")
            )
        }
        return .success((path, format))
    }

    /// A file name's stem, or a name made safe for one: "thecatapi cat abc" → "thecatapi-cat-abc".
    static func stem(_ name: String) -> String {
        var last = String(name.split(separator: "/").last ?? "cat")
        if let dot = last.lastIndex(of: "."), dot != last.startIndex { last = String(last[..<dot]) }
        let safe = String(last.map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "-" })
        return safe.isEmpty ? "cat" : safe
    }
}
