// CSecp256k1: the C headers Airlock uses, imported by exactly one Swift module (docs/architecture.md rule R2).
#pragma once
#include <secp256k1.h>
#include <secp256k1_extrakeys.h>
#include <secp256k1_schnorrsig.h>
#include <secp256k1_recovery.h>
