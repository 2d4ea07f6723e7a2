internal import CTerminalShim
import CatImageIO
import CatScenes
import CatSupport
import Dispatch

/// A live scene's view, as the app drives it: keys in, whole frames out.
@MainActor
public protocol LiveScene: AnyObject {
    /// A key while this scene is on top.
    func handle(_ key: Key)
    /// Text pasted (never keys): a prompt takes it; elsewhere it is left out, said once.
    func paste(_ text: String)
    /// Draws the whole screen from what the view was told last.
    func draw()
    /// The screen's size (or its cell size, or its graphics) changed: pictures of another
    /// size may be needed; then draw.
    func screenChanged()
}

/// The live terminal app (`load --interactive`, `edit --interactive`): takes the terminal
/// (raw mode, alternate screen, no cursor; given back on every way out, see
/// CTerminalShim), reads keys on a thread of its own, redraws on SIGWINCH, and passes
/// each key to the scene on top. Scenes stack: Load Cat → Edit Cat → Esc back.
@MainActor
public final class LiveApp: LiveHost {
    public let console: Console
    public let wording: FailureWording
    /// The terminal's size in cells, and a cell's size in pixels when the terminal said.
    public private(set) var columns: Int
    public private(set) var rows: Int
    public private(set) var cell: (width: Int, height: Int)?
    /// How pictures are drawn; `auto` may become kitty or sixel once the terminal answers.
    public private(set) var graphics: TerminalGraphics
    private var scenes: [any LiveScene] = []
    private var status: ExitStatus?
    /// Keys, replies and resizes, in the order they came: open from `enter` on, so no
    /// resize is lost between taking the terminal and `run`.
    private let (events, sink) = AsyncStream.makeStream(of: LiveEvent.self)
    private var resizeSource: (any DispatchSourceSignal)?
    private let reader = InputReader()
    /// The graphics queries (auto mode only) are waiting for the Device Attributes reply,
    /// which every terminal sends and which comes after any answer to the kitty query.
    private var detecting = false
    /// Ctrl-C came: set by the reading thread the moment it reads it, ahead of everything
    /// queued (a paste of thousands of characters, a burst of the wheel), which is dropped.
    private let interrupted = LockedValue(false)
    /// Inside one read's inputs, frames are not drawn but wanted: one is drawn after them.
    private var deferring = false, drawWanted = false

    enum LiveEvent: Sendable {
        /// What one read of the terminal held, in order.
        case inputs([TerminalInput])
        case resize
        /// Nothing came: `run` looks at its status.
        case wake
    }

    public init(console: Console, wording: FailureWording) {
        self.console = console
        self.wording = wording
        columns = console.columns
        rows = console.rows
        graphics = console.graphics
    }

    /// The scene on top has another scene under it (Esc goes back to it).
    public var canGoBack: Bool { scenes.count > 1 }

    /// The presenters' work the keys started (a preview, a save, a load), oldest first.
    private var work: [Task<Void, Never>] = []

    /// Runs a presenter input for a key, in the order keys came (tasks on the main actor
    /// start in order); `finishWork` waits for it.
    public func perform(_ input: @escaping @MainActor () async -> Void) {
        if work.count > 256 { work.removeFirst(128) }  // long done: inputs take milliseconds
        let interrupted = self.interrupted
        work.append(
            Task {
                guard !interrupted.current else { return }  // queued before Ctrl-C: not started
                await input()
            })
    }

    /// Waits for the work keys started: a save under way completes, a preview or a resize
    /// ends, before the process does (call after `leave`; nothing is drawn then).
    public func finishWork() async {
        let pending = work
        work = []
        for task in pending { await task.value }
    }

    /// Whether `scene` is the one on screen (a scene under it draws nothing).
    public func isOnTop(_ scene: any LiveScene) -> Bool { scenes.last === scene }

    public func push(_ scene: any LiveScene) {
        scenes.append(scene)
        if ct_is_taken() != 0 { scene.screenChanged() }
    }

    /// Back to the scene below, redrawn.
    public func goBack() {
        guard scenes.count > 1 else { return }
        scenes.removeLast()
        scenes.last?.draw()
    }

    /// Ends `run` with `status` (after this key, or now when a presenter decided it).
    public func quit(_ status: ExitStatus) {
        self.status = status
        sink.yield(.wake)
    }

    /// Writes a frame to the terminal (only while the app has it). Inside a read's inputs
    /// the frame is left for the one drawn after them.
    public func write(_ text: String) {
        guard ct_is_taken() != 0 else { return }
        if deferring {
            drawWanted = true
            return
        }
        console.stdout.write(text)
    }

    /// Takes the terminal. Asks the terminal its cell size (`CSI 16 t`) and, for `auto`,
    /// whether it shows kitty pictures or sixels (a kitty query, then Primary Device
    /// Attributes, which every terminal answers: the answers arrive as input).
    public func enter() throws {
        // The alternate screen, no cursor, SGR mouse reports (clicks and the wheel), the cell size asked.
        // Bracketed paste (2004): pasted text comes marked, never as keys.
        var enter = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[?1000h\u{1B}[?1006h\u{1B}[?2004h\u{1B}[H\u{1B}[2J\u{1B}[16t"
        if !graphics.forced && !graphics.inTmux && graphics.colors != .none {
            enter += "\u{1B}_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\\u{1B}[c"
            detecting = true
        }
        let restore = restoreSequence
        let code = enter.withCString { e in
            restore.withCString { r in
                ct_take(STDIN_FILENO, STDOUT_FILENO, e, strlen(e), r, strlen(r))
            }
        }
        guard code == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ENOTTY) }
        let sink = self.sink
        signal(SIGWINCH, SIG_IGN)  // as Interrupts does: before the source, which takes it over on resume
        let source = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .main)
        source.setEventHandler { sink.yield(.resize) }
        source.resume()
        resizeSource = source
        readSize()
    }

    /// Gives the terminal back (also done by every other way out, see CTerminalShim).
    public func leave() {
        reader.stop()
        ct_restore()
    }

    /// Gives the terminal back now, if a live scene has it: for signal paths that then exit.
    public nonisolated static func restoreTerminal() { ct_restore() }

    /// Undoes `enter`: kitty pictures deleted, colours reset, mouse reports off, cursor shown, main screen.
    private var restoreSequence: String {
        (graphics.kind == .kitty ? ScreenFrame.kittyDeleteAll(inTmux: graphics.inTmux) : "")
            + "\u{1B}[0m\u{1B}[?2026l\u{1B}[?2004l\u{1B}[?1006l\u{1B}[?1000l\u{1B}[?25h\u{1B}[?1049l"
    }

    /// Reads keys until a scene quits; returns the status it quit with. What one read held
    /// is taken together: frames drawn once after it, a run of characters too fast to be
    /// typed taken as a paste (`KeyDecoder.coalesce`); Ctrl-C ends the app at once, however
    /// much is queued before it.
    public func run() async -> ExitStatus {
        let sink = self.sink, interrupted = self.interrupted
        reader.start(
            interrupt: {
                interrupted.withLockedValue { $0 = true }
                sink.yield(.wake)
            }, deliver: { sink.yield(.inputs(KeyDecoder.coalesce($0))) })
        readSize()
        scenes.last?.screenChanged()
        for await event in events {
            if interrupted.current { status = .interrupted }
            if status != nil { break }
            switch event {
            case let .inputs(inputs):
                deferring = true
                for input in inputs where status == nil {
                    if interrupted.current {
                        status = .interrupted
                        break
                    }
                    take(input)
                }
                deferring = false
                if drawWanted, status == nil {
                    drawWanted = false
                    scenes.last?.draw()
                }
            case .resize:
                readSize()
                scenes.last?.screenChanged()
            case .wake: break
            }
            if interrupted.current { status = .interrupted }
            if status != nil { break }
        }
        resizeSource?.cancel()
        reader.stop()
        return status ?? .ok
    }

    private func take(_ input: TerminalInput) {
        switch input {
        case .closed:
            status = .ok
        case let .key(key):
            scenes.last?.handle(key)
        case let .paste(text):
            scenes.last?.paste(text)
        case let .cellSize(width, height):
            guard width > 0, height > 0, cell.map({ $0 != (width, height) }) ?? true else { break }
            cell = (width, height)
            scenes.last?.screenChanged()
        case let .kittyGraphics(ok):
            if ok && detecting { upgrade(to: .kitty) }
        case let .deviceAttributes(attributes):
            // A kitty answer has come by now if there is one; else sixels when listed (4).
            if detecting, graphics.kind == .symbols, attributes.contains(4) { upgrade(to: .sixel) }
            detecting = false
        }
    }

    private func upgrade(to kind: TerminalGraphics.Kind) {
        guard !graphics.forced, graphics.kind != kind else { return }
        graphics.kind = kind
        let restore = restoreSequence
        restore.withCString { ct_set_restore($0, strlen($0)) }
        scenes.last?.screenChanged()
    }

    private func readSize() {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return }
        columns = Int(size.ws_col)
        rows = Int(size.ws_row)
        // A terminal that gives fewer pixels than cells says nothing of use.
        if Int(size.ws_xpixel) >= columns, Int(size.ws_ypixel) >= rows {
            cell = (Int(size.ws_xpixel) / columns, Int(size.ws_ypixel) / rows)
        }
    }
}

/// Reads the terminal on a thread of its own and decodes what comes (KeyDecoder); a lone
/// ESC counts as Escape when nothing follows it within 30 ms.
final class InputReader: Sendable {
    private let running = LockedValue(false)

    /// `deliver` hears what each read held; `interrupt`, from this thread, the moment a
    /// read holds Ctrl-C (raw mode reads it as a byte: it would wait behind the rest).
    func start(interrupt: @escaping @Sendable () -> Void, deliver: @escaping @Sendable ([TerminalInput]) -> Void) {
        running.withLockedValue { $0 = true }
        detachThread { [self] in
            var decoder = KeyDecoder()
            var buffer = [UInt8](repeating: 0, count: 4096)
            func send(_ inputs: [TerminalInput]) {
                guard !inputs.isEmpty else { return }
                if inputs.contains(.key(.ctrl("c"))) { interrupt() }
                deliver(inputs)
            }
            while running.current {
                let ready = SystemCalls.poll(
                    STDIN_FILENO, events: Int16(POLLIN), milliseconds: decoder.hasPending ? 30 : 100)
                if ready == 0 {
                    send(decoder.flush())
                    continue
                }
                if ready < 0 { break }
                let n = buffer.withUnsafeMutableBytes { SystemCalls.read(STDIN_FILENO, into: $0) }
                guard n > 0 else {  // the terminal is gone: quit
                    deliver([.closed])
                    break
                }
                send(decoder.feed(Array(buffer[0..<n]), at: Self.seconds()))
            }
        }
    }

    func stop() { running.withLockedValue { $0 = false } }

    /// A monotonic clock in seconds.
    static func seconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
