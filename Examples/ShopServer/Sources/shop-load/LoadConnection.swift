// Graft — MIT License.
import NIOCore
import NIOHTTP1
import NIOPosix

/// One closed-loop client: a keep-alive HTTP/1.1 connection that sends a request, waits for its
/// whole answer, and sends the next, until the deadline; the request in flight at the deadline is
/// still answered (or times out) before the connection stops, so every write sent has an outcome.
/// A request with no answer within the timeout, or whose connection fails, is counted as an error
/// and the connection is opened again.
///
/// Confined to its event loop: every method runs there, which is why it can be `@unchecked Sendable`.
final class LoadConnection: @unchecked Sendable {
    private let eventLoop: any EventLoop
    private let host: String
    private let port: Int
    private let timeout: TimeAmount
    private let deadline: NIODeadline
    private var mix: RequestMix
    private var tally: Tally
    private let done: EventLoopPromise<Tally>

    private var channel: (any Channel)?
    private var inFlight: InFlight?
    /// What went wrong on the current channel, reported when it closes.
    private var failure: String?
    private var finished = false

    private struct InFlight {
        var request: PlannedRequest
        var sentAt: NIODeadline
        var timer: Scheduled<Void>
    }

    init(index: Int, eventLoop: any EventLoop, options: Options, deadline: NIODeadline) {
        self.eventLoop = eventLoop
        host = options.host
        port = options.port
        timeout = .nanoseconds(Int64(options.timeoutSeconds * 1e9))
        self.deadline = deadline
        mix = RequestMix(kind: options.mix, seed: options.seed, connection: index, runID: options.runID)
        tally = Tally(sampleLimit: options.samples)
        done = eventLoop.makePromise()
    }

    /// Runs the connection until the deadline; the future holds what its requests came to.
    func run() -> EventLoopFuture<Tally> {
        eventLoop.execute { self.connect() }
        return done.futureResult
    }

    // MARK: - Called by ResponseCollector, on the event loop

    /// The answer to the request in flight on `channel`, complete.
    func answered(on channel: any Channel, status: Int, body: [UInt8], keepAlive: Bool) {
        eventLoop.assertInEventLoop()
        guard channel === self.channel, let inFlight else { return }
        self.inFlight = nil
        inFlight.timer.cancel()
        let elapsed = (NIODeadline.now() - inFlight.sentAt).nanoseconds / 1_000
        tally.answered(inFlight.request, status: status, body: body, microseconds: UInt32(clamping: elapsed))
        if keepAlive {
            sendNext()
        } else {
            self.channel = nil
            channel.close(promise: nil)
            connect()
        }
    }

    /// An error on `channel`; the channel is being closed.
    func failed(on channel: any Channel, error: any Error) {
        eventLoop.assertInEventLoop()
        if channel === self.channel, failure == nil { failure = "\(error)" }
    }

    /// `channel` closed.
    func closed(_ channel: any Channel) {
        eventLoop.assertInEventLoop()
        guard channel === self.channel else { return }
        self.channel = nil
        if let inFlight {
            self.inFlight = nil
            inFlight.timer.cancel()
            tally.lostConnection(inFlight.request, error: failure ?? "closed by the server")
            retry()
        } else {
            connect()
        }
    }

    // MARK: - The loop

    private func connect() {
        guard !finishIfDue() else { return }
        failure = nil
        ClientBootstrap(group: eventLoop)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(ResponseCollector(connection: self))
                }
            }
            .connect(host: host, port: port)
            .whenComplete { result in
                switch result {
                case .success(let channel):
                    if self.finished {
                        channel.close(promise: nil)
                    } else {
                        self.channel = channel
                        self.sendNext()
                    }
                case .failure(let error):
                    self.tally.lostConnection(nil, error: "\(error)")
                    self.retry()
                }
            }
    }

    /// Opens the connection again after a pause, so that a server that is down is not hammered.
    private func retry() {
        eventLoop.scheduleTask(in: .milliseconds(100)) { self.connect() }
    }

    private func sendNext() {
        guard !finishIfDue(), let channel else { return }
        let request = mix.next()
        tally.sent(request)
        var head = HTTPRequestHead(version: .http1_1, method: request.method, uri: request.path)
        head.headers.add(name: "Host", value: "\(host):\(port)")
        if let body = request.body {
            head.headers.add(name: "Content-Type", value: "application/json")
            head.headers.add(name: "Content-Length", value: "\(body.utf8.count)")
        }
        let timer = eventLoop.scheduleTask(in: timeout) { self.timedOut() }
        inFlight = InFlight(request: request, sentAt: .now(), timer: timer)
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        if let body = request.body {
            channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(string: body))), promise: nil)
        }
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
    }

    private func timedOut() {
        guard let inFlight else { return }
        self.inFlight = nil
        tally.timedOut(inFlight.request)
        let stale = channel
        channel = nil
        stale?.close(promise: nil)
        connect()
    }

    /// Stops once the deadline has passed (never with a request in flight); returns whether it did.
    private func finishIfDue() -> Bool {
        if finished { return true }
        guard inFlight == nil, NIODeadline.now() >= deadline else { return false }
        finished = true
        let open = channel
        channel = nil
        open?.close(promise: nil)
        done.succeed(tally)
        return true
    }
}

/// Collects each answer's status and body and hands it to its connection when complete.
final class ResponseCollector: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    /// Enough of a body to check it; the rest is counted but not kept.
    private static let bodyLimit = 64 * 1024

    private let connection: LoadConnection
    private var status = 0
    private var keepAlive = true
    private var body: [UInt8] = []

    init(connection: LoadConnection) {
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = Int(head.status.code)
            keepAlive = head.isKeepAlive
            body.removeAll(keepingCapacity: true)
        case .body(let buffer):
            if body.count < Self.bodyLimit { body += buffer.readableBytesView.prefix(Self.bodyLimit - body.count) }
        case .end:
            connection.answered(on: context.channel, status: status, body: body, keepAlive: keepAlive)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        connection.failed(on: context.channel, error: error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection.closed(context.channel)
        context.fireChannelInactive()
    }
}
