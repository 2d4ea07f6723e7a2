import CatScenes
import FilterCore
import ImageIO
import TestSupport
import Testing

@Suite("Batch planning")
struct BatchPlanningTests {
    @Test func namesNeverCollideNorEscape() {
        let outputs = BatchPlanning.outputs(
            for: [
                ("a/cat.jpg", .jpeg), ("b/cat.jpg", .jpeg), ("CAT.png", .png),
                ("../../etc/passwd.jpg", .jpeg), ("c/cat.JPG", .jpeg), ("noext", nil),
            ],
            directory: "out", format: .png)
        #expect(
            outputs == [
                "out/cat.png", "out/cat-2.png", "out/CAT-3.png", "out/passwd.png", "out/cat-4.png", "out/noext.png",
            ])
        let same = BatchPlanning.outputs(for: [("x/a.jpg", .jpeg), ("y/a.png", .png)], directory: "o/", format: nil)
        #expect(same == ["o/a.jpg", "o/a.png"])
        for output in outputs { #expect(!output.dropFirst(4).contains("/")) }
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
    init(files: [String]) { self.files = files }
    func expandInputs(_ inputs: [String]) async throws -> [String] { files }
    func prepareOutputDirectory(_ directory: String) async throws {
        if directory == "/nope" { throw ImageIOError.cannotCreate(path: directory, reason: "cannot create the folder") }
    }
    func process(_ input: String, to output: String, chain: FilterChain, options: EditOptions) async throws -> Double {
        if input.hasPrefix("bad") { throw ImageIOError.corrupt(file: input, reason: "boom") }
        return 1
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
        #expect(view.plans == [BatchPlan(files: 3, skipped: 0)])
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
        #expect(view.plans == [BatchPlan(files: mine.count, skipped: files.count - mine.count)])
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
}
