/// The signer's built-in ERC-20 tokens on Ethereum mainnet (chain 1).
///
/// The most used entries of the Uniswap default token list (Uniswap/default-token-list, `src/tokens/mainnet.json` at commit
/// 1d730f59d0561ee72dd7f08b6373172adb99d0b2); addresses are EIP-55 checksummed and checked in the tests. See
/// README.md beside this file for the source and how to refresh it.
enum BuiltInTokens {
    struct Entry {
        let symbol: String
        let address: String
        let decimals: UInt8
    }

    /// Mainnet (chain id 1).
    static let mainnet: [Entry] = [
        .init(symbol: "WETH", address: "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2", decimals: 18),
        .init(symbol: "DAI", address: "0x6B175474E89094C44Da98b954EedeAC495271d0F", decimals: 18),
        .init(symbol: "ZRX", address: "0xE41d2489571d322189246DaFA5ebDe1F4699F498", decimals: 18),
        .init(symbol: "CRV", address: "0xD533a949740bb3306d119CC777fa900bA034cd52", decimals: 18),
        .init(symbol: "UNI", address: "0x1f9840a85d5aF5bf1D1762F925BDADdC4201F984", decimals: 18),
        .init(symbol: "USDT", address: "0xdAC17F958D2ee523a2206206994597C13D831ec7", decimals: 6),
        .init(symbol: "USDC", address: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", decimals: 6),
        .init(symbol: "MKR", address: "0x9f8F72aA9304c8B593d555F12eF6589cC3A579A2", decimals: 18),
        .init(symbol: "LINK", address: "0x514910771AF9Ca656af840dff83E8264EcF986CA", decimals: 18),
        .init(symbol: "COMP", address: "0xc00e94Cb662C3520282E6f5717214004A7f26888", decimals: 18),
        .init(symbol: "YFI", address: "0x0bc529c00C6401aEF6D220BE8C6Ea1667F6Ad93e", decimals: 18),
        .init(symbol: "WBTC", address: "0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599", decimals: 8),
        .init(symbol: "BAL", address: "0xba100000625a3754423978a60c9317c58a424e3D", decimals: 18),
        .init(symbol: "AAVE", address: "0x7Fc66500c84A76Ad7e9c93437bFc5Ac33E2DDaE9", decimals: 18),
        .init(symbol: "GRT", address: "0xc944E90C64B2c07662A292be6244BDf05Cda44a7", decimals: 18),
        .init(symbol: "SNX", address: "0xC011a73ee8576Fb46F5E1c5751cA3B9Fe0af2a6F", decimals: 18),
        .init(symbol: "MANA", address: "0x0F5D2fB29fb7d3CFeE444a200298f468908cC942", decimals: 18),
        .init(symbol: "LRC", address: "0xBBbbCA6A901c926F240b89EacB641d8Aec7AEafD", decimals: 18),
        .init(symbol: "GNO", address: "0x6810e776880C02933D47DB1b9fc05908e5386b96", decimals: 18),
        .init(symbol: "STORJ", address: "0xB64ef51C888972c908CFacf59B47C1AfBC0Ab8aC", decimals: 8),
    ]
}
