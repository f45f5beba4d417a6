// BitcoinCrypto
