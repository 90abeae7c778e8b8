// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Graft",
    products: [
        .library(name: "Graft", targets: ["Graft"]),
        .executable(name: "graft-demo", targets: ["graft-demo"]),
    ],
    targets: [
        .target(name: "Graft"),
        .executableTarget(name: "graft-demo", dependencies: ["Graft"]),
        .executableTarget(name: "graft-stress", dependencies: ["Graft"]),
        .testTarget(name: "GraftTests", dependencies: ["Graft"], exclude: ["ModelBased/README.md"]),
    ],
    swiftLanguageModes: [.v6]
)
