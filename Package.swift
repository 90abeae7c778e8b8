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
        .testTarget(name: "GraftTests", dependencies: ["Graft"]),
    ],
    swiftLanguageModes: [.v6]
)
