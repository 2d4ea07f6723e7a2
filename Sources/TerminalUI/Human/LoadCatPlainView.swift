import CatScenes

/// The Load Cat scene when stdout is not a terminal: no escape codes, one line per fact.
@MainActor
public final class LoadCatPlainView: LoadCatView {
    private let console: Console
    private let wording: FailureWording

    public init(console: Console, wording: FailureWording = FailureWording()) {
        self.console = console
        self.wording = wording
    }

    // Scripts read one block at the end: no steps, no progress, no picture.
    public func updateLoadingState(_ state: LoadCatState) {}
    public func updateProgress(_ progress: LoadCatProgress) {}
    public func showCatFound(_ cat: LoadCatFound) {}
    public func showCatDecoded(_ cat: LoadCatDecoded) {}
    public func updateImage(_ image: LoadCatPreview) {}

    public func showLoaded(_ result: LoadCatResult) {
        let cat = result.cat
        var lines = ["provider: \(cat.provider)"]
        if let id = cat.id { lines.append("id: \(id)") }
        if let breed = cat.breed { lines.append("breed: \(breed)") }
        if let temperament = cat.temperament { lines.append("temperament: \(temperament)") }
        lines += ["url: \(cat.url)", "size: \(cat.width)x\(cat.height)", "bytes: \(cat.bytes)"]
        if let output = result.output, output != "-" { lines.append("saved: \(output)") }
        let target = result.output == "-" ? console.stderr : console.stdout
        target.write(lines.map(ForeignText.visible).joined(separator: "\n") + "\n")
    }

    public func showError(_ failure: SceneFailure) {
        console.stderr.write(wording.errorLine(failure, color: false))
    }
}
