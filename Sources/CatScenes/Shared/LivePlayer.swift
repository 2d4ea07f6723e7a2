import CatImageIO
import CatSupport

/// Plays an animation in a live scene at its own delays: each frame is made (`make`, off
/// the main actor) while the one before waits its turn, then shown (`show`) at its time. A
/// frame or two at preview size are in memory, never the animation (`LiveFrames`). Paused
/// and played again, it goes on from where it was. Behind by more than a frame, its clock
/// starts again from now rather than rushing to catch up.
@MainActor
final class LivePlayer {
    /// Frames shown, those shown more than 10 ms after their time, and the file's delays of
    /// those shown in milliseconds (what showing them should have taken).
    var played = (shown: 0, late: 0, delays: 0)
    private var frames: LiveFrames?
    private var task: Task<Void, Never>?
    /// The task stopped last, perhaps still finishing the frame it was making: the next
    /// play waits for it, so that one maker at a time reads the file.
    private var stopped: Task<Void, Never>?
    private let now: @MainActor () -> Duration

    init(now: @escaping @MainActor () -> Duration) { self.now = now }

    var isPlaying: Bool { task != nil }

    /// Plays the frames `open` gives (opened once, on the first play; nil: a still image,
    /// nothing plays); `failed` hears why they could not be opened or a frame made (the
    /// player has stopped then).
    func play(
        open: @escaping @MainActor () async throws -> LiveFrames?,
        make: @escaping @MainActor (LiveFrames) -> Task<LiveFrame, any Error>,
        show: @escaping @MainActor (LiveFrame, _ count: Int) -> Void,
        failed: @escaping @MainActor (any Error) -> Void
    ) {
        let before = task ?? stopped
        before?.cancel()
        stopped = nil
        task = Task {
            await before?.value  // its frame in the making finished: one maker at a time
            do {
                if frames == nil { frames = try await open() }
                guard let frames else { return }
                try await run(frames, make: make, show: show)
            } catch {
                guard !Task.isCancelled else { return }  // stopped meanwhile: another may play now
                task = nil
                failed(error)
            }
        }
    }

    func stop() {
        task?.cancel()
        if let task {
            stopped = task
            Self.stopping.append(task)
        }
        task = nil
    }

    /// Stops, and returns once the frame in the making is done: nothing plays on, holding
    /// the scene, while the process ends.
    func end() async {
        stop()
        await stopped?.value
    }

    /// Every player stopped, perhaps still finishing a frame (a cat replaced by the next
    /// one drops its player): `endAll` waits for them before the process ends.
    private static var stopping: [Task<Void, Never>] = []

    static func endAll() async {
        while let task = stopping.popLast() { await task.value }
    }

    /// Throws the error of a frame that could not be made (not a cancellation).
    private func run(
        _ frames: LiveFrames, make: @MainActor (LiveFrames) -> Task<LiveFrame, any Error>,
        show: @MainActor (LiveFrame, Int) -> Void
    ) async throws {
        var due = now(), making = make(frames)
        while !Task.isCancelled {
            let frame: LiveFrame
            do {
                frame = try await making.value
            } catch {
                if Task.isCancelled || error is CancellationError { break }
                throw error
            }
            guard !Task.isCancelled else { break }  // no frame made for nothing
            making = make(frames)  // the next one, made while this one waits its turn
            if due > now() { try? await Task.sleep(for: due - now()) }
            guard !Task.isCancelled else { break }
            let late = now() - due
            played.shown += 1
            played.delays += frame.delay
            if late > .milliseconds(10) { played.late += 1 }
            show(frame, frames.count)
            due = (late > .milliseconds(frame.delay) ? now() : due) + .milliseconds(frame.delay)
        }
        _ = try? await making.value  // not left reading the file while another maker starts
    }
}
