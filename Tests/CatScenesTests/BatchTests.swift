import CatImageIO
import CatScenes
import CatSupport
import FilterCore
import Foundation
import TestSupport
import Testing

@Suite("Batch planning")
struct BatchPlanningTests {
    func outputs(_ paths: [String], format: ImageFormat?, directory: String = "out") -> [String] {
        BatchPlanning.outputs(for: paths.map { BatchInput(path: $0) }, directory: directory, format: format)
    }

    @Test func namesNeverCollideNorEscape() {
        let inputs = ["a/cat.jpg", "b/cat.jpg", "CAT.png", "../../etc/passwd.jpg", "c/cat.JPG", "noext"]
        let names = outputs(inputs, format: .png)
        #expect(Set(names.map { $0.lowercased() }).count == names.count, "\(names)")
        #expect(names[2] == "out/CAT.png", "the one already a PNG keeps its name")
        #expect(names[3] == "out/passwd.png" && names[5] == "out/noext.png")
        for i in [0, 1, 4] {
            #expect(
                names[i].range(of: #"^out/cat-jpg-[0-9a-f]{6}\.png$"#, options: .regularExpression) != nil, "\(names)")
        }
        for name in names { #expect(!name.dropFirst(4).contains("/")) }
        #expect(outputs(["x/a.jpg", "y/a.png"], format: nil, directory: "o/") == ["o/a.jpg", "o/a.png"])
    }

    /// The run of the issue: a/x1..x12.jpg and b/x1..x12.png to JPEG. An output's name
    /// depends on the whole list only through clashes, and never on order or shards.
    @Test func twentyFourInputsTwentyFourNamesInAnyOrder() {
        let inputs = (1...12).map { "a/x\($0).jpg" } + (1...12).map { "b/x\($0).png" }
        let names = outputs(inputs, format: .jpeg)
        #expect(Set(names).count == 24)
        #expect(names[0] == "out/x1.jpg" && names[12] == "out/x1-png.jpg")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5 {
            let shuffled = inputs.shuffled(using: &generator)
            let again = Dictionary(uniqueKeysWithValues: zip(shuffled, outputs(shuffled, format: .jpeg)))
            #expect(inputs.indices.allSatisfy { again[inputs[$0]] == names[$0] })
        }
    }

    @Test func noInputIsAnotherInputsOutput() {
        // d/x.png would become out/x.jpg, which is an input itself.
        let names = outputs(["d/x.png", "out/x.jpg"], format: .jpeg)
        #expect(names[0] == "out/x-png.jpg")
        // A file literally named like a disambiguated one pushes the other further.
        let named = outputs(["p/x.png", "q/x.jpg", "r/x-png.jpg"], format: .jpeg)
        #expect(named[1] == "out/x.jpg" && named[2] == "out/x-png.jpg")
        #expect(named[0].range(of: #"^out/x-png-[0-9a-f]{6}\.jpg$"#, options: .regularExpression) != nil, "\(named)")
    }

    @Test func recursiveInputsMirrorTheirTree() {
        let inputs = [
            BatchInput(path: "photos/2024/a.jpg", relativePath: "2024/a.jpg"),
            BatchInput(path: "photos/2025/a.jpg", relativePath: "2025/a.jpg"),
            BatchInput(path: "photos/../x/b.jpg", relativePath: "../x/b.jpg"),
        ]
        #expect(
            BatchPlanning.outputs(for: inputs, directory: "out", format: .png)
                == ["out/2024/a.png", "out/2025/a.png", "out/x/b.png"])
    }

    @Test func shardsParseAsKOfN() {
        #expect(Shard("2/4") == Shard(index: 2, count: 4))
        for bad in ["4/3", "0/2", "1/0", "2", "a/b", "1/2/3", "-1/2", ""] { #expect(Shard(bad) == nil, "\(bad)") }
        #expect(Shard(index: 3, count: 3)?.description == "3/3")
    }

    @Test func shardsCoverEveryInputExactlyOnce() {
        let inputs = (0..<500).map { "photos/\($0 % 7)/cat-\($0).jpg" }
        for count in 1...6 {
            var seen: [String: Int] = [:]
            for index in 0..<count {
                for input in inputs where BatchPlanning.shard(of: input, count: count) == index {
                    seen[input, default: 0] += 1
                }
            }
            #expect(seen.count == inputs.count && seen.values.allSatisfy { $0 == 1 }, "\(count) shards")
            let sizes = (0..<count).map { i in inputs.filter { BatchPlanning.shard(of: $0, count: count) == i }.count }
            #expect(sizes.allSatisfy { $0 > inputs.count / count / 2 }, "balanced: \(sizes)")
        }
    }
}

/// An in-memory batch: files named "bad*" fail.
final class FakeBatchInteractor: BatchInteractorInput, @unchecked Sendable {
    let files: [String]
    let existing: Set<String>
    init(files: [String], existing: Set<String> = []) {
        self.files = files
        self.existing = existing
    }
    func expandInputs(_ inputs: [String], manifest: String?, recursive: Bool, skipping: OutputFolder?, limit: Int)
        async throws -> BatchInputs
    {
        var list = BatchInputs(limit: limit)
        for file in files { try list.add(file) }
        return list
    }
    func existingOutputs(_ outputs: BatchOutputs, of work: [Int32], in folder: OutputFolder) async throws -> [Bool] {
        work.map { existing.contains(outputs.output(Int($0))) }
    }
    func prepareOutputDirectory(_ directory: String) async throws -> OutputFolder {
        if directory == "/nope" { throw ImageIOError.cannotCreate(path: directory, reason: "cannot create the folder") }
        return OutputFolder(path: directory, resolved: directory, device: 0, inode: 0)
    }
    func process(_ input: String, to output: String, chain: FilterChain, options: EditOptions) async throws
        -> (megapixels: Double, notes: [String])
    {
        if input.hasPrefix("bad") { throw ImageIOError.corrupt(file: input, reason: "boom") }
        return (1, [])
    }
}

@MainActor
final class RecordingBatchView: BatchView {
    var plans: [BatchPlan] = [], results: [BatchFileResult] = [], summaries: [BatchSummary] = [],
        errors: [SceneFailure] = []
    var progress: [BatchProgress] = []
    func showPlan(_ plan: BatchPlan) { plans.append(plan) }
    func updateProgress(_ p: BatchProgress) { progress.append(p) }
    func showFileResult(_ result: BatchFileResult) { results.append(result) }
    func showSummary(_ summary: BatchSummary) { summaries.append(summary) }
    func showError(_ failure: SceneFailure) { errors.append(failure) }
    func showListing(_ inputs: [String], leftOut: [String]) { listings.append((inputs, leftOut)) }
    func showNote(_ note: String) { notes.append(note) }
    var notes: [String] = []
    var listings: [([String], [String])] = []
}

/// `--shard auto/N`: the task's index from the array-job engine's variable.
@Suite("Shards of array jobs")
struct ArrayJobShardTests {
    func shard(_ count: Int, _ environment: [String: String]) -> Result<Shard, SceneFailure> {
        Shard.fromArrayJob(count: count, environment: environment)
    }

    @Test func eachEngineGivesItsIndexOneBased() throws {
        #expect(try shard(4, ["JOB_COMPLETION_INDEX": "0"]).get() == Shard(index: 1, count: 4))
        #expect(try shard(4, ["SLURM_ARRAY_TASK_ID": "3"]).get() == Shard(index: 3, count: 4))
        #expect(try shard(4, ["AWS_BATCH_JOB_ARRAY_INDEX": "3"]).get() == Shard(index: 4, count: 4))
        #expect(try shard(4, ["CLOUD_RUN_TASK_INDEX": "2"]).get() == Shard(index: 3, count: 4))
        // The first variable of the list wins; N stays the caller's.
        #expect(
            try shard(4, ["SLURM_ARRAY_TASK_ID": "4", "JOB_COMPLETION_INDEX": "1", "SLURM_ARRAY_TASK_COUNT": "1"]).get()
                == Shard(index: 2, count: 4))
    }

    @Test func noIndexOrABadOneIsAUsageError() {
        for (environment, words) in [
            ([String: String](), "none of them is set"), (["CLOUD_RUN_TASK_INDEX": "4"], "must be 1-4"),
            (["SLURM_ARRAY_TASK_ID": "0"], "must be 1-4"), (["JOB_COMPLETION_INDEX": "-1"], "must be 1-4"),
            (["JOB_COMPLETION_INDEX": "2\u{1B}]0;x\u{07}"], "is not a task index"),
            (["JOB_COMPLETION_INDEX": "99999999999999999999"], "is not a task index"),
        ] {
            guard case let .failure(failure) = shard(4, environment) else {
                Issue.record("\(environment) gave a shard")
                continue
            }
            #expect(failure.status == .usage && failure.message.contains(words), "\(failure.message)")
            #expect(!failure.message.contains("\u{1B}"), "the variable's text is not repeated")
        }
    }
}

@MainActor
@Suite("Batch presenter")
struct BatchPresenterTests {
    @Test func someFailTheRestAreWritten() async {
        let view = RecordingBatchView()
        let presenter = BatchPresenter(
            view: view, interactor: FakeBatchInteractor(files: ["a.jpg", "bad.jpg", "c.png"]))
        let status = await presenter.run(
            BatchRequest(inputs: ["x"], outputDirectory: "out", filters: ["sepia"], jobs: 2))
        #expect(status == .dataError)
        #expect(view.plans == [BatchPlan(files: 3, otherShards: 0)])
        #expect(Set(view.results.map(\.output)) == ["out/a.jpg", "out/bad.jpg", "out/c.png"])
        #expect(view.results.first { $0.input == "bad.jpg" }?.error == "cannot decode bad.jpg: corrupt data (boom)")
        #expect(view.progress.last?.done == 3 && view.progress.last?.total == 3)
        #expect(view.summaries.map { [$0.ok, $0.failed] } == [[2, 1]])
    }

    @Test func allGoodIsZeroAndShardsSkip() async {
        let view = RecordingBatchView()
        let files = (0..<20).map { "cat\($0).jpg" }
        let presenter = BatchPresenter(view: view, interactor: FakeBatchInteractor(files: files))
        let status = await presenter.run(
            BatchRequest(
                inputs: ["x"], outputDirectory: "out", filters: ["mono"],
                format: .png, jobs: 3, shard: Shard(index: 2, count: 3)))
        #expect(status == .ok)
        let mine = files.filter { BatchPlanning.shard(of: $0, count: 3) == 1 }
        #expect(view.plans == [BatchPlan(files: mine.count, otherShards: files.count - mine.count)])
        #expect(Set(view.results.map(\.input)) == Set(mine))
        #expect(view.results.allSatisfy { $0.output.hasSuffix(".png") })
    }

    @Test func runLevelErrors() async {
        for (request, status) in [
            (BatchRequest(inputs: ["x"], outputDirectory: "out", filters: ["nope"]), CatScenes.ExitStatus.usage),
            (BatchRequest(inputs: ["x"], outputDirectory: "/nope", filters: ["mono"]), .cannotCreate),
        ] {
            let view = RecordingBatchView()
            #expect(
                await BatchPresenter(view: view, interactor: FakeBatchInteractor(files: ["a.jpg"])).run(request)
                    == status)
            #expect(view.errors.count == 1 && view.results.isEmpty)
        }
    }

    @Test func skipExistingReportsAndSkips() async {
        let view = RecordingBatchView()
        let interactor = FakeBatchInteractor(files: ["a.jpg", "b.jpg", "c.jpg"], existing: ["out/b.jpg"])
        let status = await BatchPresenter(view: view, interactor: interactor)
            .run(BatchRequest(inputs: ["x"], outputDirectory: "out", filters: ["mono"], skipExisting: true))
        #expect(status == .ok)
        #expect(view.plans == [BatchPlan(files: 2, otherShards: 0, existing: 1)])
        #expect(view.results.filter(\.skipped).map(\.output) == ["out/b.jpg"])
        #expect(Set(view.results.filter { !$0.skipped }.map(\.output)) == ["out/a.jpg", "out/c.jpg"])
        #expect(view.summaries.map { [$0.ok, $0.failed, $0.skipped] } == [[2, 0, 1]])
    }
}

/// The attack on issue 42's planning: the 6-digit suffix can meet another input's name,
/// and a suffix can push a long name past NAME_MAX.
@Suite("Batch planning under attack")
struct BatchPlanningAttackTests {
    @Test func aNameCraftedToMeetASuffixedOneIsToldApart() {
        let hex = String(format: "%06x", FileNames.hash("a/x.png") & 0xFF_FFFF)
        let inputs = ["a/x.png", "b/x.png", "c/x-png-\(hex).png"]
        let names = BatchPlanning.outputs(for: inputs.map { BatchInput(path: $0) }, directory: "out", format: .png)
        #expect(names.count == 3 && Set(names.map { $0.lowercased() }).count == 3, "\(names)")
        #expect(names.contains { $0.range(of: #"^out/x-png-[0-9a-f]{16}\.png$"#, options: .regularExpression) != nil })
    }

    @Test func aSuffixNeverMakesANameLongerThan255Bytes() {
        let long = String(repeating: "é", count: 125) + "x.png"  // 251 + 4 bytes
        let names = BatchPlanning.outputs(
            for: ["a/" + long, "b/" + long].map { BatchInput(path: $0) }, directory: "out", format: .png)
        #expect(Set(names).count == 2, "\(names)")
        for name in names {
            let last = FileNames.encode(String(name.dropFirst(4)))
            #expect(last.count <= 255 && String(validating: last, as: UTF8.self) != nil, "\(last.count) bytes")
        }
    }
}
