import Foundation

/// A real HTTP/1.1 server on 127.0.0.1 (a free port), for tests of the HTTP client and
/// the providers: plain POSIX sockets, one thread per connection, handlers that write
/// whatever bytes, at whatever pace, a test needs (stalls, endless bodies, bad replies).
public final class TestHTTPServer: @unchecked Sendable {
    public struct Request: Sendable {
        public let method: String
        /// Path and query, as sent.
        public let target: String
        /// Header names lower-cased.
        public let headers: [String: String]
        /// The start of the body, read with the head (`Connection.readBody` reads the rest).
        public var bodyStart: [UInt8] = []
        public var path: String { String(target.split(separator: "?", maxSplits: 1).first ?? "") }
    }

    public typealias Handler = @Sendable (Request, Connection) -> Void

    public let port: UInt16
    private let listener: Int32
    private let routes: [String: Handler]
    private let lock = NSLock()
    private var received: [Request] = []
    private var stopped = false

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Every request so far, in order.
    public var requests: [Request] { lock.withLock { received } }

    /// `routes`: by path (without the query); anything else is a 404.
    public init(routes: [String: Handler]) throws {
        self.routes = routes
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 64) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        listener = fd
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    deinit { stop() }

    public func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        if first {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }

    var isStopped: Bool { lock.withLock { stopped } }

    private func acceptLoop() {
        while !isStopped {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            Thread.detachNewThread { [self] in serve(client) }
        }
    }

    private func serve(_ fd: Int32) {
        let connection = Connection(fd: fd, server: self)
        defer { connection.close() }
        guard let request = readRequest(fd) else { return }
        lock.withLock { received.append(request) }
        if let handler = routes[request.path] {
            handler(request, connection)
        } else {
            connection.respond(status: 404, contentType: "text/plain", body: Array("not found".utf8))
        }
    }

    private func readRequest(_ fd: Int32) -> Request? {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !data.containsTerminator {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return nil }
            data += chunk[0..<n]
            if data.count > 65536 { return nil }
        }
        var end = 0
        while !(data[end] == 13 && data[end + 1] == 10 && data[end + 2] == 13 && data[end + 3] == 10) { end += 1 }
        let text = String(decoding: data[..<end], as: UTF8.self)
        let lines = text.components(separatedBy: "\r\n")
        let first = lines[0].split(separator: " ")
        guard first.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return Request(
            method: String(first[0]), target: String(first[1]), headers: headers, bodyStart: Array(data[(end + 4)...]))
    }

    /// One client connection: write a response, or bytes at any pace.
    public final class Connection: @unchecked Sendable {
        let fd: Int32
        unowned let server: TestHTTPServer
        private var closed = false

        init(fd: Int32, server: TestHTTPServer) {
            self.fd = fd
            self.server = server
        }

        /// False once the client has gone or the server stopped.
        @discardableResult
        public func write(_ bytes: [UInt8]) -> Bool {
            guard !server.isStopped else { return false }
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeBytes {
                    send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
                }
                if n <= 0 { return false }
                offset += n
            }
            return true
        }

        public func writeHead(status: Int, headers: [(String, String)]) {
            var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\nConnection: close\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            write(Array((head + "\r\n").utf8))
        }

        public func respond(status: Int = 200, contentType: String, body: [UInt8], headers: [(String, String)] = []) {
            writeHead(
                status: status, headers: [("Content-Type", contentType), ("Content-Length", "\(body.count)")] + headers)
            write(body)
        }

        public func respondJSON(_ text: String, status: Int = 200) {
            respond(status: status, contentType: "application/json", body: Array(text.utf8))
        }

        /// The request's whole body (Content-Length of it, at most 64 MiB).
        public func readBody(_ request: Request) -> [UInt8] {
            let length = min(64 << 20, Int(request.headers["content-length"] ?? "") ?? 0)
            var body = request.bodyStart
            var chunk = [UInt8](repeating: 0, count: 65536)
            while body.count < length {
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, min($0.count, length - body.count), 0) }
                guard n > 0 else { break }
                body += chunk[0..<n]
            }
            return body
        }

        /// Waits, unless the server stops first.
        public func pause(seconds: Double) {
            let end = Date().addingTimeInterval(seconds)
            while Date() < end && !server.isStopped { usleep(20_000) }
        }

        func close() {
            guard !closed else { return }
            closed = true
            Foundation.close(fd)
        }

        static func reason(_ status: Int) -> String {
            switch status {
            case 200: return "OK"
            case 302: return "Found"
            case 404: return "Not Found"
            case 429: return "Too Many Requests"
            case 500: return "Internal Server Error"
            case 503: return "Service Unavailable"
            default: return "Status"
            }
        }
    }
}

extension Array where Element == UInt8 {
    fileprivate var containsTerminator: Bool {
        guard count >= 4 else { return false }
        for i in 0...(count - 4) where self[i] == 13 && self[i + 1] == 10 && self[i + 2] == 13 && self[i + 3] == 10 {
            return true
        }
        return false
    }
}
