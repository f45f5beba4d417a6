import ArgumentParser

/// The chain a command works on (`--chain btc|eth`); Bitcoin unless told.
enum Chain: String, CaseIterable, ExpressibleByArgument {
    case btc, eth
}
