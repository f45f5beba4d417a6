// The AirgapTransport module; its contents arrive with their issues (see README.md for the layout).
enum AirgapTransportModule {}
