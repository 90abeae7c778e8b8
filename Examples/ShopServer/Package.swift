// swift-tools-version:6.2
import PackageDescription

// An HTTP service on Hummingbird and SQLite, wired by Graft, with a hand-wired variant of the same
// server for comparison. Kept apart from the root package so `swift test` there never builds
// Hummingbird. Build: swift build -c release --package-path Examples/ShopServer
let package = Package(
    name: "ShopServer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Graft", path: "../.."),
        // No default traits: the server needs neither swift-configuration nor full Foundation.
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1", traits: []),
        .package(url: "https://github.com/vapor/sqlite-nio", exact: "1.13.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
    ],
    targets: [
        // The service, both wirings, and the wiring-cost measurement.
        .target(
            name: "Shop",
            dependencies: [
                .product(name: "Graft", package: "Graft"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(name: "shop-server", dependencies: ["Shop"]),
        .executableTarget(name: "wiring-cost", dependencies: ["Shop"]),
        // The load generator load-test.sh drives the servers with: closed-loop HTTP/1.1 clients
        // that record every write they sent and what became of it.
        .executableTarget(
            name: "shop-load",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
