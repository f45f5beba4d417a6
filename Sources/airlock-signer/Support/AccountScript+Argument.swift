import ArgumentParser
import Signer

extension AccountScript: ExpressibleByArgument {}
