// Graft — MIT License.
import SQLiteNIO

// One plain struct per table, each reading its own columns from a row: the same shape repeats on
// purpose (a shared decoder would hide which column feeds which field).

struct Account: Codable, Sendable {
    var id: Int
    var name: String
    var email: String
    var balanceCents: Int

    init(row: SQLiteRow) throws {
        id = try row.int("id")
        name = try row.text("name")
        email = try row.text("email")
        balanceCents = try row.int("balance_cents")
    }
}

struct Product: Codable, Sendable {
    var id: Int
    var name: String
    var priceCents: Int

    init(row: SQLiteRow) throws {
        id = try row.int("id")
        name = try row.text("name")
        priceCents = try row.int("price_cents")
    }
}

struct Order: Codable, Sendable {
    var id: Int
    var accountID: Int
    var productID: Int
    var quantity: Int
    var totalCents: Int
    /// Seconds since 1970.
    var createdAt: Int

    init(row: SQLiteRow) throws {
        id = try row.int("id")
        accountID = try row.int("account_id")
        productID = try row.int("product_id")
        quantity = try row.int("quantity")
        totalCents = try row.int("total_cents")
        createdAt = try row.int("created_at")
    }
}

struct NewAccount: Codable, Sendable {
    var name: String
    var email: String
    var balanceCents: Int

    /// The largest opening balance: 100 million in cents, so that the sum of every balance stays
    /// far inside SQLite's 64-bit integers.
    static let maximumBalanceCents = 10_000_000_000

    /// Throws ``ShopError/invalid(_:)`` naming the first field that cannot be stored. A field needs a
    /// letter or a digit; lengths count Unicode scalars, so that combining marks do not make a
    /// "short" name megabytes long; control characters (a NUL would cut the stored text short when
    /// read back) and direction overrides are refused.
    func validate() throws(ShopError) {
        try Self.check(name, "name", longest: 200)
        try Self.check(email, "email", longest: 254)
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, !email.contains(where: \.isWhitespace)
        else { throw .invalid("email must look like name@domain, not \(email)") }
        guard (0...Self.maximumBalanceCents).contains(balanceCents) else {
            throw .invalid("balanceCents must be 0 to \(Self.maximumBalanceCents)")
        }
    }

    private static func check(_ text: String, _ field: String, longest: Int) throws(ShopError) {
        guard text.unicodeScalars.contains(where: { $0.properties.isAlphabetic || $0.properties.numericType != nil })
        else { throw .invalid("\(field) must not be empty (it needs a letter or a digit)") }
        guard text.unicodeScalars.count <= longest else {
            throw .invalid("\(field) must be at most \(longest) characters")
        }
        // Controls, line and paragraph separators, and the bidirectional overrides and isolates
        // (which make text display other than it reads).
        guard
            !text.unicodeScalars.contains(where: {
                [.control, .lineSeparator, .paragraphSeparator].contains($0.properties.generalCategory)
                    || (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value)
            })
        else { throw .invalid("\(field) must not contain control or direction characters") }
    }
}

struct NewOrder: Codable, Sendable {
    var accountID: Int
    var productID: Int
    var quantity: Int
}

struct Report: Codable, Sendable {
    var name: String
    var windowDays: Int
    var orders: Int
    var revenueCents: Int
}

struct ProductList: Codable, Sendable {
    var products: [Product]
}

/// What a request asked for that cannot be done; the handlers turn it into a 4xx response.
enum ShopError: Error, CustomStringConvertible {
    case notFound(String)
    case insufficientFunds(accountID: Int)
    case unknownProduct(Int)
    case invalid(String)
    /// What the request would create exists already (an account's email).
    case duplicate(String)

    var description: String {
        switch self {
        case .notFound(let what): "\(what) not found"
        case .insufficientFunds(let accountID): "account \(accountID) cannot pay for this order"
        case .unknownProduct(let id): "no product \(id)"
        case .invalid(let why): why
        case .duplicate(let what): what
        }
    }
}
