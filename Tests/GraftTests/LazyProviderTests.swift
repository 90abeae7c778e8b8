import Foundation
import GraftTesting
import Testing

@testable import Graft

final class Customer {}

final class Employee {
    let customer: Customer
    let lazyCustomer: Lazy<Customer>
    let providedCustomer: Provider<Customer>
    var employer: Employer?

    init(customer: Customer, lazyCustomer: Lazy<Customer>, providedCustomer: Provider<Customer>) {
        self.customer = customer
        self.lazyCustomer = lazyCustomer
        self.providedCustomer = providedCustomer
    }
}

final class Employer {
    let customer: Customer
    let lazyCustomer: Lazy<Customer>
    let employee: Employee
    let lazyEmployee: Lazy<Employee>
    let providedEmployee: Provider<Employee>

    init(r: Resolver) {
        customer = r.resolve(Customer.self)!
        lazyCustomer = r.resolve(Lazy<Customer>.self)!
        employee = r.resolve(Employee.self)!
        lazyEmployee = r.resolve(Lazy<Employee>.self)!
        providedEmployee = r.resolve(Provider<Employee>.self)!
    }
}

/// An employer, its employee and customers, each wired with `Lazy` and `Provider` too.
struct EmploymentAssembly: Assembly {
    let scope: ObjectScope

    func assemble(container: Container) {
        container.register(Customer.self) { _ in Customer() }.inObjectScope(scope)
        container.register(Employee.self) { r in
            Employee(
                customer: r.resolve(Customer.self)!,
                lazyCustomer: r.resolve(Lazy<Customer>.self)!,
                providedCustomer: r.resolve(Provider<Customer>.self)!)
        }.initCompleted { [scope] r, employee in
            if scope !== ObjectScope.transient { employee.employer = r.resolve(Employer.self) }
        }.inObjectScope(scope)
        container.register(Employer.self) { r in Employer(r: r) }.inObjectScope(scope)
    }
}

@Suite(.capturedLog) struct LazyTests {
    @Test func resolvesOnFirstAccessThenKeepsTheInstance() {
        let container = Container()
        let made = Counter()
        container.register(Animal.self) { _ in
            made.increment(); return Dog()
        }.inObjectScope(.transient)
        let lazy = container.resolve(Lazy<Animal>.self)
        #expect(made.value == 0)
        #expect(lazy?.instance is Dog)
        #expect(lazy?.instance === lazy?.instance)
        #expect(made.value == 1)
    }

    @Test func unregisteredServiceGivesNoLazy() {
        let container = Container()
        container.register(Dog.self, name: "Hachi") { _ in Dog() }
        #expect(container.resolve(Lazy<Cat>.self) == nil)
        #expect(container.resolve(Lazy<Dog>.self, name: "Mimi") == nil)
        #expect(container.resolve(Lazy<Dog>.self, name: "Hachi") != nil)
    }

    @Test func passesNameAndArguments() {
        let container = Container()
        container.register(Dog.self, name: "pair") { (_, name: String, age: Int) in Dog(name: "\(name) \(age)") }
        #expect(container.resolve(Lazy<Dog>.self, name: "pair", arguments: "Hachi", 9)?.instance.name == "Hachi 9")
        #expect(container.resolve(Lazy<Dog>.self, arguments: "Hachi", 9) == nil)
    }

    @Test func resolvesForwardedTypes() {
        let container = Container()
        container.register(Dog.self) { _ in Dog() }.implements(Animal.self)
        #expect(container.resolve(Lazy<Animal>.self)?.instance is Dog)
    }

    @Test(arguments: [ObjectScope.graph, .container])
    func sharesTheGraphItWasCreatedIn(_ scope: ObjectScope) {
        let container = Container()
        EmploymentAssembly(scope: scope).assemble(container: container)
        let employer = container.resolve(Employer.self)!
        #expect(employer.lazyCustomer.instance === employer.customer)
        #expect(employer.employee.lazyCustomer.instance === employer.customer)
        #expect(employer.employee.employer === employer)
        #expect(employer.lazyEmployee.instance.employer === employer)
    }

    @Test func transientScopeMakesNewInstances() {
        let container = Container()
        EmploymentAssembly(scope: .transient).assemble(container: container)
        let employer = container.resolve(Employer.self)!
        #expect(employer.lazyCustomer.instance !== employer.employee.lazyCustomer.instance)
        #expect(employer.lazyCustomer.instance !== employer.customer)
    }

    @Test func lazyOfACycleMemberResolvesItsGraph() {
        let container = Container()
        EmploymentAssembly(scope: .graph).assemble(container: container)
        #expect(container.resolve(Lazy<Employee>.self)?.instance.employer != nil)
    }

    @Test func accessDuringAnotherResolutionLeavesThatGraphIntact() {
        final class Holder { let lazy: Lazy<Customer>; init(lazy: Lazy<Customer>) { self.lazy = lazy } }
        final class Pair {
            let first: Holder; let second: Holder; init(_ a: Holder, _ b: Holder) { first = a; second = b }
        }
        let container = Container()
        container.register(Customer.self) { _ in Customer() }
        container.register(Holder.self, name: "singleton") { r in Holder(lazy: r.resolve(Lazy<Customer>.self)!) }
            .inObjectScope(.container)
        container.register(Holder.self) { r in Holder(lazy: r.resolve(Lazy<Customer>.self)!) }
        container.register(Pair.self) { r in
            let first = r.resolve(Holder.self)!
            _ = r.resolve(Holder.self, name: "singleton")!.lazy.instance  // resolves in another graph
            return Pair(first, r.resolve(Holder.self)!)
        }
        _ = container.resolve(Holder.self, name: "singleton")
        let pair = container.resolve(Pair.self)!
        #expect(pair.first === pair.second)
        #expect(pair.first.lazy.instance === pair.second.lazy.instance)
    }

    @Test func synchronizedLazyFromManyThreads() {
        let container = Container()
        container.register(Animal.self) { _ in Dog() }.inObjectScope(.container)
        let resolver = container.synchronize()
        // A Lazy made through the synchronized view takes the hierarchy's mutex on access; it is not
        // `Sendable` because one made through a plain container does not, so the test vouches for it.
        let shared = Unchecked(resolver.resolve(Lazy<Animal>.self)!)
        let dog = Unchecked(container.resolve(Animal.self)!)
        let group = DispatchGroup()
        let mismatches = Unchecked(Box(0))
        let lock = NSLock()
        for _ in 0..<8 {
            group.enter()
            Thread {
                for _ in 0..<500 {
                    let own = resolver.resolve(Lazy<Animal>.self)!.instance
                    if own !== dog.value || shared.value.instance !== dog.value {
                        lock.lock(); mismatches.value.value += 1; lock.unlock()
                    }
                }
                group.leave()
            }.start()
        }
        group.wait()
        #expect(mismatches.value.value == 0)
    }

    @Test func cachedLazyOutlivesItsContainer() {
        var container: Container? = Container()
        container!.register(Unit.self) { _ in Unit() }
        let lazy = container!.resolve(Lazy<Unit>.self)!
        let first = lazy.instance
        weak let gone = container
        container = nil
        #expect(gone == nil)
        #expect(lazy.instance === first)
    }

    @Test func cachedSynchronizedLazyOutlivesItsContainer() {
        var container: Container? = Container()
        container!.register(Unit.self) { _ in Unit() }
        let lazy = container!.synchronize().resolve(Lazy<Unit>.self)!
        let first = lazy.instance
        container = nil
        #expect(lazy.instance === first)
    }

    @Test func lazyFindsItsOwnGraphAfterOthersEscaped() {
        let container = Container()
        container.register(Unit.self) { _ in Unit() }
        container.register(Job.self) { r in Job(unit: r.resolve(Unit.self)!, later: r.resolve(Lazy<Unit>.self)!) }
        let first = container.resolve(Job.self)!
        let second = container.resolve(Job.self)!
        let third = container.resolve(Job.self)!
        #expect(first.later.instance === first.unit)
        #expect(third.later.instance === third.unit)
        #expect(second.later.instance === second.unit)
        #expect(first.unit !== second.unit)
    }
}

/// Carries a value into threads; each use says why that is safe.
private struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

// Provider's cases mirror LazyTests' one for one, so each wrapper's behaviour reads on its own.
@Suite(.capturedLog) struct ProviderTests {
    @Test func resolvesOnEveryAccess() {
        let container = Container()
        let made = Counter()
        container.register(Animal.self) { _ in
            made.increment(); return Dog()
        }
        let provider = container.resolve(Provider<Animal>.self)
        #expect(made.value == 0)
        #expect(provider?.instance is Dog)
        #expect(provider?.instance !== provider?.instance)
        #expect(made.value == 3)
    }

    @Test func unregisteredServiceGivesNoProvider() {
        let container = Container()
        container.register(Dog.self, name: "Hachi") { _ in Dog() }
        #expect(container.resolve(Provider<Cat>.self) == nil)
        #expect(container.resolve(Provider<Dog>.self, name: "Mimi") == nil)
        #expect(container.resolve(Provider<Dog>.self, name: "Hachi") != nil)
    }

    @Test func honoursTheScope() {
        let container = Container()
        EmploymentAssembly(scope: .container).assemble(container: container)
        let employer = container.resolve(Employer.self)!
        #expect(employer.providedEmployee.instance === employer.providedEmployee.instance)
        #expect(employer.employee.providedCustomer.instance === employer.customer)

        let graph = Container()
        EmploymentAssembly(scope: .graph).assemble(container: graph)
        let graphEmployer = graph.resolve(Employer.self)!
        #expect(graphEmployer.providedEmployee.instance !== graphEmployer.providedEmployee.instance)
        #expect(graphEmployer.providedEmployee.instance.employer !== graphEmployer)
    }

    @Test func passesArgumentsAndForwards() {
        let container = Container()
        container.register(Dog.self) { (_, name: String, age: Int) in Dog(name: name) }.implements(Animal.self)
        #expect(container.resolve(Provider<Dog>.self, arguments: "Hachi", 3)?.instance.name == "Hachi")
        #expect(container.resolve(Provider<Animal>.self, arguments: "Hachi", 3)?.instance.name == "Hachi")
    }

    @Test func providerKeepsItsRegistrationAfterRemoveAll() {
        let container = Container()
        container.register(Unit.self) { _ in Unit() }
        let provider = container.resolve(Provider<Unit>.self)!
        container.removeAll()
        #expect(provider.instance !== provider.instance)
    }

    @Test func lazyAndProviderIgnoreLaterReplacementsAndOverrides() {
        let parent = Container()
        parent.register(Animal.self) { _ in Cat() }
        let provider = parent.resolve(Provider<Animal>.self)!
        let lazy = parent.resolve(Lazy<Animal>.self)!
        parent.register(Animal.self) { _ in Dog() }
        #expect(provider.instance is Cat)
        #expect(lazy.instance is Cat)

        let child = Container(parent: parent)
        let childProvider = child.resolve(Provider<Animal>.self)!
        child.register(Animal.self) { _ in Cat(name: "override") }
        #expect(childProvider.instance is Dog)
    }
}

/// A `Lazy` or `Provider` whose resolution fails stops with the reason itself, whether or not
/// anything was logged.
@Suite(.capturedLog) struct DeferredFailureTests {
    final class Node {
        let children: [Node]
        init(children: [Node]) { self.children = children }
    }

    /// A tree built through `Provider` in its own factory re-enters its key: the stop names the
    /// cycle and the ways out.
    @Test func providerOfItsOwnServiceStopsNamingTheCycleAndTheWayOut() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            Container.loggingFunction = nil
            let container = Container()
            var depth = 0
            container.register(Node.self) { r in
                depth += 1
                return Node(children: depth < 3 ? [r.resolve(Provider<Node>.self)!.instance] : [])
            }
            _ = container.resolve(Node.self)
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("Provider<Node>.instance could not be resolved: circular dependency: Node -> Node."))
        #expect(stderr.contains("pass its state as an argument"))
        #expect(stderr.contains("inject a Lazy<Node>"))
        #expect(!stderr.contains("see the logged message"))
    }

    @Test func lazyWhoseFactoryThrowsStopsWithTheError() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            struct Offline: Error {}
            Container.loggingFunction = nil
            let container = Container()
            container.register(Customer.self) { _ in throw Offline() }
            _ = container.resolve(Lazy<Customer>.self)!.instance
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(
            stderr.contains(
                "Graft: Lazy<Customer>.instance could not be resolved: resolution failed: the factory of Customer "
                    + "threw Offline()"))
    }
}

@Suite(.capturedLog) struct OptionalResolutionTests {
    @Test func optionalOfARegisteredType() {
        let container = Container()
        container.register(Dog.self, name: "Hachi") { (_, age: Int) in Dog(name: "\(age)") }
        container.register(Dog.self) { _ in Dog() }.implements(Animal.self)
        #expect((container.resolve(Dog?.self) ?? nil) != nil)
        #expect((container.resolve(Animal?.self) ?? nil) != nil)
        #expect((container.resolve(Dog?.self, name: "Hachi", argument: 3) ?? nil)?.name == "3")
    }

    @Test func optionalOfAnUnregisteredTypeIsSomeNil() {
        let container = Container()
        let result = LogCapture().capturing { container.resolve(Cat?.self) }
        guard case .some(.none) = result else {
            Issue.record("expected .some(nil), got \(String(describing: result))")
            return
        }
    }

    @Test func optionalOfLazyAndProvider() {
        let container = Container()
        container.register(Dog.self) { _ in Dog() }
        #expect((container.resolve(Lazy<Dog>?.self) ?? nil)?.instance != nil)
        #expect((container.resolve(Provider<Dog>?.self) ?? nil)?.instance != nil)
        #expect(container.resolve(Lazy<Dog?>.self)?.instance != nil)
        let missing = LogCapture().capturing { container.resolve(Lazy<Cat>?.self) }
        #expect(missing != nil && missing! == nil)
    }
}
