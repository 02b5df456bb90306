//! The EIP-712 digest and signature recovery against a vector made by eth-account 0.14.0
//! (`crates/ledger-domain/fixtures/x402_eip712_vector.py`, run once; its output is below),
//! and the checks of [`verify_exact`] one by one.

use serde_json::json;

use super::*;
use crate::credits::CreditPackage;

const SIGNER: &str = "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23";
const PAY_TO: &str = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";
const NONCE: &str = "0xf3746613c2d920b5fdabc0856f2aeb2d4f88ee6037b8cc5d04a71a4462f13480";
const DIGEST: &str = "0x8971f8e47c9c7d871df75ec196dab092193d266d903d83b17ec2c8489b52ee33";
const SIGNATURE: &str = "0xe630397aa4eef5d07c9932f49ca156c28bd12bd9157992f4c9ff27eb65ede57f71f9d18fcb85aed30aeb24c2d55494ab313d3eab0a7cae2e68d3cb0a2b175f5f1c";
const VALID_BEFORE: u64 = 1_893_456_000;

fn config() -> X402Config {
    X402Config::new(
        DEFAULT_NETWORK,
        DEFAULT_ASSET,
        DEFAULT_ASSET_NAME,
        DEFAULT_ASSET_VERSION,
        DEFAULT_ASSET_DECIMALS,
        PAY_TO,
        300,
    )
    .expect("config")
}

/// The package the vector pays for: 10 USD = 10 000 000 atomic USDC.
fn package() -> CreditPackage {
    CreditPackage {
        id: "credits_1000".into(),
        credits: 1000,
        price_cents: 1000,
    }
}

fn payment(offered: &PaymentRequirements) -> PaymentPayload {
    PaymentPayload {
        x402_version: 2,
        resource: None,
        accepted: offered.clone(),
        payload: json!({
            "signature": SIGNATURE,
            "authorization": {
                "from": SIGNER, "to": PAY_TO, "value": "10000000", "validAfter": "0",
                "validBefore": VALID_BEFORE.to_string(), "nonce": NONCE,
            },
        }),
    }
}

#[test]
fn digest_and_recovery_match_eth_account() {
    let domain = Eip712Domain {
        name: "USDC".into(),
        version: "2".into(),
        chain_id: 84532,
        verifying_contract: parse_address(DEFAULT_ASSET).expect("asset"),
    };
    let message = TransferWithAuthorization {
        from: parse_address(SIGNER).expect("from"),
        to: parse_address(PAY_TO).expect("to"),
        value: 10_000_000,
        valid_after: 0,
        valid_before: u128::from(VALID_BEFORE),
        nonce: parse_hex(NONCE)
            .and_then(|b| b.try_into().ok())
            .expect("nonce"),
    };
    let digest = typed_data_digest(&domain, &message);
    assert_eq!(hex_of(&digest), DIGEST);
    let signature = parse_hex(SIGNATURE).expect("signature");
    let signer = recover_signer(&digest, &signature).expect("recovers");
    assert_eq!(hex_of(&signer), SIGNER.to_lowercase());
    // v as 0/1 is accepted too; a flipped bit recovers someone else or nothing.
    let mut zero_one = signature.clone();
    zero_one[64] -= 27;
    assert_eq!(recover_signer(&digest, &zero_one), Some(signer));
    let mut flipped = signature.clone();
    flipped[10] ^= 1;
    assert_ne!(recover_signer(&digest, &flipped), Some(signer));
    assert_eq!(recover_signer(&digest, &signature[..64]), None);
}

#[test]
fn requirements_of_a_package() {
    let r = config().requirements_for(&package());
    let v = serde_json::to_value(&r).expect("json");
    assert_eq!(
        v,
        json!({
            "scheme": "exact", "network": "eip155:84532", "asset": DEFAULT_ASSET,
            "amount": "10000000", "payTo": PAY_TO, "maxTimeoutSeconds": 300,
            "extra": {"name": "USDC", "version": "2"},
        })
    );
    assert_eq!(config().amount_for(1), "10000");
    assert!(X402Config::new("solana:x", DEFAULT_ASSET, "U", "2", 6, PAY_TO, 1).is_err());
    assert!(X402Config::new(DEFAULT_NETWORK, "0x12", "U", "2", 6, PAY_TO, 1).is_err());
    assert!(X402Config::new(DEFAULT_NETWORK, DEFAULT_ASSET, "U", "2", 1, PAY_TO, 1).is_err());
}

#[test]
fn a_genuine_payment_verifies() {
    let offered = config().requirements_for(&package());
    let verified = verify_exact(&payment(&offered), &offered, 1_800_000_000).expect("valid");
    assert_eq!(verified.payer, SIGNER.to_lowercase());
    assert_eq!(verified.nonce, NONCE);
    assert_eq!(hex_of(&verified.digest), DIGEST);
    // The settlement id is a pure function of the authorization.
    assert_eq!(
        local_transaction_id(&verified),
        local_transaction_id(&verified.clone())
    );
    // Through the header encoding and back.
    let header = encode_header(&payment(&offered));
    assert_eq!(decode_payment(&header).expect("decodes"), payment(&offered));
    assert_eq!(
        decode_payment("not base64!").expect_err("refused").code,
        ErrorCode::PaymentInvalid
    );
}

fn refused(payment: &PaymentPayload, offered: &PaymentRequirements, now: u64) -> ErrorCode {
    verify_exact(payment, offered, now)
        .expect_err("refused")
        .code
}

#[test]
fn each_check_refuses_with_its_code() {
    let offered = config().requirements_for(&package());
    let now = 1_800_000_000;
    let with = |path: &str, value: &str| {
        let mut p = payment(&offered);
        p.payload["authorization"][path] = json!(value);
        p
    };
    assert_eq!(
        refused(&with("value", "1"), &offered, now),
        ErrorCode::PaymentAmountMismatch
    );
    assert_eq!(
        refused(&with("to", SIGNER), &offered, now),
        ErrorCode::PaymentRecipientMismatch
    );
    assert_eq!(
        refused(&payment(&offered), &offered, VALID_BEFORE),
        ErrorCode::PaymentExpired
    );
    assert_eq!(
        refused(&with("validAfter", "1900000000"), &offered, now),
        ErrorCode::PaymentExpired
    );
    // A changed nonce or window is a different message: the signature no longer fits.
    let other_nonce = format!("0x{}", "11".repeat(32));
    assert_eq!(
        refused(&with("nonce", &other_nonce), &offered, now),
        ErrorCode::PaymentSignatureInvalid
    );
    assert_eq!(
        refused(&with("validBefore", "1893456001"), &offered, now),
        ErrorCode::PaymentSignatureInvalid
    );
    // Signed by someone other than `from`.
    assert_eq!(
        refused(&with("from", PAY_TO), &offered, now),
        ErrorCode::PaymentSignatureInvalid
    );
    // The client changed what it accepted, or speaks another version.
    let mut cheaper = payment(&offered);
    cheaper.accepted.amount = "1".into();
    assert_eq!(refused(&cheaper, &offered, now), ErrorCode::PaymentInvalid);
    let mut v1 = payment(&offered);
    v1.x402_version = 1;
    assert_eq!(refused(&v1, &offered, now), ErrorCode::PaymentInvalid);
    let mut junk = payment(&offered);
    junk.payload = json!({"signature": "0x00"});
    assert_eq!(refused(&junk, &offered, now), ErrorCode::PaymentInvalid);
    // Case of addresses does not matter.
    let mut lower = payment(&offered);
    lower.accepted.pay_to = PAY_TO.to_lowercase();
    lower.payload["authorization"]["to"] = json!(PAY_TO.to_lowercase());
    assert!(verify_exact(&lower, &offered, now).is_ok());
}
