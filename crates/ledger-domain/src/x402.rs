//! x402 (protocol version 2) credit purchases: the payment requirements of a credit
//! package, the wire objects, and the local verification of an `exact` EVM payment
//! (issue 19 item 3; `MCP-NOTES.md`, x402 specification v2).
//!
//! A client asks for a package and is answered with [`PaymentRequired`]: one
//! [`PaymentRequirements`] of scheme `exact` on the configured network, in the configured
//! stablecoin (USDC: 6 decimals, so one US cent is 10 000 atomic units), paid to the
//! configured address. It pays by signing an EIP-3009 `TransferWithAuthorization` as
//! EIP-712 typed data and sending it back as a [`PaymentPayload`]. [`verify_exact`]
//! checks everything that can be checked without a chain: the offered requirements were
//! accepted unchanged, the recipient, the amount, the validity window, and that the
//! signature recovers to the authorizing address. The nonce of an authorization must
//! never be used twice; that is the store's unique key, not this module's.
//!
//! Pure: no clock (the caller passes `now`), no I/O.

use k256::ecdsa::{RecoveryId, Signature, VerifyingKey};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha3::{Digest, Keccak256};

use crate::credits::CreditPackage;
use crate::error::{DomainError, ErrorCode};

/// The protocol version spoken.
pub const X402_VERSION: u32 = 2;
/// The one scheme offered.
pub const SCHEME_EXACT: &str = "exact";
/// The header of a 402 answer: base64 of the [`PaymentRequired`] JSON.
pub const PAYMENT_REQUIRED_HEADER: &str = "PAYMENT-REQUIRED";
/// The header of a paying retry: base64 of the [`PaymentPayload`] JSON.
pub const PAYMENT_SIGNATURE_HEADER: &str = "PAYMENT-SIGNATURE";
/// The header of a paid answer: base64 of the [`SettlementResponse`] JSON.
pub const PAYMENT_RESPONSE_HEADER: &str = "PAYMENT-RESPONSE";
/// Where an MCP client puts its payment (`params._meta`).
pub const MCP_PAYMENT_META: &str = "x402/payment";
/// Where an MCP result carries the settlement (`result._meta`).
pub const MCP_PAYMENT_RESPONSE_META: &str = "x402/payment-response";

/// Defaults: Base Sepolia and Circle's USDC there (EIP-712 domain `USDC`, version `2`).
pub const DEFAULT_NETWORK: &str = "eip155:84532";
pub const DEFAULT_ASSET: &str = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
pub const DEFAULT_ASSET_NAME: &str = "USDC";
pub const DEFAULT_ASSET_VERSION: &str = "2";
pub const DEFAULT_ASSET_DECIMALS: u32 = 6;
pub const DEFAULT_MAX_TIMEOUT_SECONDS: u64 = 300;

/// Where and in what x402 payments are taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct X402Config {
    /// CAIP-2 network, `eip155:<chain id>`.
    pub network: String,
    pub chain_id: u64,
    /// The token contract (EIP-712 `verifyingContract`), as configured.
    pub asset: String,
    /// EIP-712 domain name and version of the token.
    pub asset_name: String,
    pub asset_version: String,
    /// Decimals of the token (at least 2: prices are in cents).
    pub asset_decimals: u32,
    /// The address paid.
    pub pay_to: String,
    /// How long a signed authorization may be valid for.
    pub max_timeout_seconds: u64,
}

impl X402Config {
    /// Checks and builds a configuration.
    ///
    /// # Errors
    /// A message naming what is malformed: the network must be `eip155:<chain id>`, the
    /// asset and `pay_to` 20-byte hex addresses, decimals between 2 and 30.
    pub fn new(
        network: &str,
        asset: &str,
        asset_name: &str,
        asset_version: &str,
        asset_decimals: u32,
        pay_to: &str,
        max_timeout_seconds: u64,
    ) -> Result<Self, String> {
        let chain_id = chain_id_of(network)
            .ok_or_else(|| format!("network '{network}': expected eip155:<chain id>"))?;
        parse_address(asset).ok_or_else(|| format!("asset '{asset}': expected 0x + 40 hex"))?;
        parse_address(pay_to).ok_or_else(|| format!("pay-to '{pay_to}': expected 0x + 40 hex"))?;
        if !(2..=30).contains(&asset_decimals) {
            return Err(format!("decimals {asset_decimals}: expected 2 to 30"));
        }
        if max_timeout_seconds == 0 {
            return Err("max timeout must be positive".into());
        }
        Ok(Self {
            network: network.to_owned(),
            chain_id,
            asset: asset.to_owned(),
            asset_name: asset_name.to_owned(),
            asset_version: asset_version.to_owned(),
            asset_decimals,
            pay_to: pay_to.to_owned(),
            max_timeout_seconds,
        })
    }

    /// Atomic units of the token for a price in cents.
    pub fn amount_for(&self, price_cents: i64) -> String {
        let zeros = "0".repeat((self.asset_decimals - 2) as usize);
        format!("{price_cents}{zeros}")
    }

    /// The requirements of paying for `package`.
    pub fn requirements_for(&self, package: &CreditPackage) -> PaymentRequirements {
        let mut extra = Map::new();
        extra.insert("name".into(), Value::from(self.asset_name.clone()));
        extra.insert("version".into(), Value::from(self.asset_version.clone()));
        PaymentRequirements {
            scheme: SCHEME_EXACT.into(),
            network: self.network.clone(),
            asset: self.asset.clone(),
            amount: self.amount_for(package.price_cents),
            pay_to: self.pay_to.clone(),
            max_timeout_seconds: self.max_timeout_seconds,
            extra,
        }
    }
}

/// `eip155:84532` -> 84532.
pub fn chain_id_of(network: &str) -> Option<u64> {
    let id = network.strip_prefix("eip155:")?;
    (!id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()))
        .then(|| id.parse().ok())
        .flatten()
}

/// What is paid, and how (x402 `PaymentRequirements`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentRequirements {
    pub scheme: String,
    pub network: String,
    pub asset: String,
    /// Atomic units, decimal text.
    pub amount: String,
    pub pay_to: String,
    pub max_timeout_seconds: u64,
    #[serde(default)]
    pub extra: Map<String, Value>,
}

impl PaymentRequirements {
    /// Whether `other` is these requirements (addresses compare without case; what the
    /// client may have added to `extra` beyond the token's name and version is ignored).
    pub fn matches(&self, other: &Self) -> bool {
        self.scheme == other.scheme
            && self.network == other.network
            && self.asset.eq_ignore_ascii_case(&other.asset)
            && self.amount == other.amount
            && self.pay_to.eq_ignore_ascii_case(&other.pay_to)
            && self.max_timeout_seconds == other.max_timeout_seconds
            && ["name", "version"]
                .iter()
                .all(|k| self.extra.get(*k) == other.extra.get(*k))
    }
}

/// The resource being paid for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceInfo {
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}

/// The body of a 402: what the client may pay with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentRequired {
    pub x402_version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub resource: ResourceInfo,
    pub accepts: Vec<PaymentRequirements>,
}

/// A client's payment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentPayload {
    pub x402_version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<ResourceInfo>,
    pub accepted: PaymentRequirements,
    /// Scheme-specific; for `exact` on EVM an [`ExactEvmPayload`].
    pub payload: Value,
}

/// The `exact` EVM payload: an EIP-3009 authorization and its signature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExactEvmPayload {
    pub signature: String,
    pub authorization: Authorization,
}

/// EIP-3009 `TransferWithAuthorization` (numbers as decimal text, addresses and the
/// nonce as 0x hex).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Authorization {
    pub from: String,
    pub to: String,
    pub value: String,
    pub valid_after: String,
    pub valid_before: String,
    pub nonce: String,
}

/// The answer of a settled payment (`PAYMENT-RESPONSE`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SettlementResponse {
    pub success: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payer: Option<String>,
    pub transaction: String,
    pub network: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount: Option<String>,
}

/// A payment whose authorization checked out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedPayment {
    /// The signer, lowercase 0x hex.
    pub payer: String,
    /// The authorization's nonce, lowercase 0x hex (unique per payer and token).
    pub nonce: String,
    pub network: String,
    /// The token, lowercase 0x hex.
    pub asset: String,
    pub amount: String,
    /// The EIP-712 digest that was signed.
    pub digest: [u8; 32],
    /// The signature, 65 bytes.
    pub signature: Vec<u8>,
}

/// Why a payment is refused. Each reason has its error code; the refusal is answered
/// with 402 and the payment requirements again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub code: ErrorCode,
    pub message: String,
}

impl Refusal {
    fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    /// The payment header or payload is not an x402 v2 `exact` EVM payment, or it did
    /// not accept the requirements offered.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::PaymentInvalid, message)
    }

    /// The authorization was used before.
    pub fn replayed() -> Self {
        Self::new(
            ErrorCode::PaymentReplayed,
            "this payment authorization (payer and nonce) was already used; sign a new one",
        )
    }

    /// The error clients see.
    pub fn to_error(&self) -> DomainError {
        DomainError::rule(self.code, self.message.clone())
    }
}

/// Decodes a `PAYMENT-SIGNATURE` value: standard base64 (padding optional) of JSON.
///
/// # Errors
/// `payment_invalid` when it is not base64 of a v2 payment payload.
pub fn decode_payment(header: &str) -> Result<PaymentPayload, Refusal> {
    use base64::Engine as _;
    let text = header.trim();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .or_else(|_| base64::engine::general_purpose::STANDARD_NO_PAD.decode(text))
        .map_err(|_| Refusal::invalid("the payment is not base64"))?;
    let payload: PaymentPayload = serde_json::from_slice(&bytes)
        .map_err(|e| Refusal::invalid(format!("the payment is not an x402 payload: {e}")))?;
    Ok(payload)
}

/// Standard base64 of the JSON of `value` (the three headers' encoding).
pub fn encode_header<T: Serialize>(value: &T) -> String {
    use base64::Engine as _;
    let json = serde_json::to_vec(value).unwrap_or_default();
    base64::engine::general_purpose::STANDARD.encode(json)
}

/// Verifies an `exact` EVM payment against the requirements offered, at `now` (Unix
/// seconds), without a chain: version and scheme, `accepted` equal to `offered`,
/// recipient, amount, validity window (`validAfter <= now < validBefore`) and the
/// EIP-712 signature recovering to `from`. The nonce is not checked here (the store's
/// unique key does that).
///
/// # Errors
/// The [`Refusal`] of the first check that fails.
pub fn verify_exact(
    payment: &PaymentPayload,
    offered: &PaymentRequirements,
    now: u64,
) -> Result<VerifiedPayment, Refusal> {
    if payment.x402_version != X402_VERSION {
        return Err(Refusal::invalid(format!(
            "x402Version {} is not supported; use {X402_VERSION}",
            payment.x402_version
        )));
    }
    if !payment.accepted.matches(offered) {
        return Err(Refusal::invalid(
            "the payment's `accepted` requirements differ from the ones offered",
        ));
    }
    let exact: ExactEvmPayload = serde_json::from_value(payment.payload.clone())
        .map_err(|e| Refusal::invalid(format!("payload is not an EIP-3009 authorization: {e}")))?;
    let a = &exact.authorization;
    let bad = |field: &str| Refusal::invalid(format!("authorization.{field} is malformed"));
    let from = parse_address(&a.from).ok_or_else(|| bad("from"))?;
    let to = parse_address(&a.to).ok_or_else(|| bad("to"))?;
    let value = parse_uint(&a.value).ok_or_else(|| bad("value"))?;
    let valid_after = parse_uint(&a.valid_after).ok_or_else(|| bad("validAfter"))?;
    let valid_before = parse_uint(&a.valid_before).ok_or_else(|| bad("validBefore"))?;
    let nonce: [u8; 32] = parse_hex(&a.nonce)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| bad("nonce"))?;
    let pay_to = parse_address(&offered.pay_to).ok_or_else(|| bad("payTo"))?;
    if to != pay_to {
        return Err(Refusal::new(
            ErrorCode::PaymentRecipientMismatch,
            format!("the authorization pays {}, not {}", a.to, offered.pay_to),
        ));
    }
    if Some(value) != parse_uint(&offered.amount) {
        return Err(Refusal::new(
            ErrorCode::PaymentAmountMismatch,
            format!(
                "the authorization transfers {} atomic units; {} are required",
                a.value, offered.amount
            ),
        ));
    }
    let now = u128::from(now);
    if valid_after > now {
        return Err(Refusal::new(
            ErrorCode::PaymentExpired,
            "the authorization is not valid yet (validAfter is in the future)",
        ));
    }
    if valid_before <= now {
        return Err(Refusal::new(
            ErrorCode::PaymentExpired,
            "the authorization expired (validBefore has passed); sign a new one",
        ));
    }
    let chain_id = chain_id_of(&offered.network)
        .ok_or_else(|| Refusal::invalid("the network is not an EVM chain"))?;
    let asset = parse_address(&offered.asset).ok_or_else(|| bad("asset"))?;
    let text = |k: &str| {
        offered
            .extra
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let domain = Eip712Domain {
        name: text("name"),
        version: text("version"),
        chain_id,
        verifying_contract: asset,
    };
    let transfer = TransferWithAuthorization {
        from,
        to,
        value,
        valid_after,
        valid_before,
        nonce,
    };
    let digest = typed_data_digest(&domain, &transfer);
    let signature = parse_hex(&exact.signature).ok_or_else(|| bad("signature"))?;
    let signer = recover_signer(&digest, &signature).ok_or_else(|| {
        Refusal::new(
            ErrorCode::PaymentSignatureInvalid,
            "the signature is not a valid secp256k1 signature of the authorization",
        )
    })?;
    if signer != from {
        return Err(Refusal::new(
            ErrorCode::PaymentSignatureInvalid,
            "the signature was not made by the authorization's `from` address",
        ));
    }
    Ok(VerifiedPayment {
        payer: hex_of(&from),
        nonce: hex_of(&nonce),
        network: offered.network.clone(),
        asset: hex_of(&asset),
        amount: offered.amount.clone(),
        digest,
        signature,
    })
}

/// The deterministic id a settlement without a chain gives a payment: keccak-256 of the
/// signed EIP-712 digest, 0x hex.
pub fn local_transaction_id(payment: &VerifiedPayment) -> String {
    hex_of(&keccak256(&payment.digest))
}

/// The EIP-712 domain of a token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Eip712Domain {
    pub name: String,
    pub version: String,
    pub chain_id: u64,
    pub verifying_contract: [u8; 20],
}

/// The EIP-3009 message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransferWithAuthorization {
    pub from: [u8; 20],
    pub to: [u8; 20],
    pub value: u128,
    pub valid_after: u128,
    pub valid_before: u128,
    pub nonce: [u8; 32],
}

const DOMAIN_TYPE: &str =
    "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)";
const TRANSFER_TYPE: &str = "TransferWithAuthorization(address from,address to,uint256 value,\
uint256 validAfter,uint256 validBefore,bytes32 nonce)";

/// The digest an EIP-712 signature of `message` in `domain` signs:
/// `keccak256(0x1901 ‖ domainSeparator ‖ hashStruct(message))`.
pub fn typed_data_digest(domain: &Eip712Domain, message: &TransferWithAuthorization) -> [u8; 32] {
    let mut d = Vec::with_capacity(32 * 5);
    d.extend_from_slice(&keccak256(DOMAIN_TYPE.as_bytes()));
    d.extend_from_slice(&keccak256(domain.name.as_bytes()));
    d.extend_from_slice(&keccak256(domain.version.as_bytes()));
    d.extend_from_slice(&word_u128(u128::from(domain.chain_id)));
    d.extend_from_slice(&word_address(&domain.verifying_contract));
    let separator = keccak256(&d);
    let mut s = Vec::with_capacity(32 * 7);
    s.extend_from_slice(&keccak256(TRANSFER_TYPE.as_bytes()));
    s.extend_from_slice(&word_address(&message.from));
    s.extend_from_slice(&word_address(&message.to));
    s.extend_from_slice(&word_u128(message.value));
    s.extend_from_slice(&word_u128(message.valid_after));
    s.extend_from_slice(&word_u128(message.valid_before));
    s.extend_from_slice(&message.nonce);
    let struct_hash = keccak256(&s);
    let mut m = Vec::with_capacity(66);
    m.extend_from_slice(&[0x19, 0x01]);
    m.extend_from_slice(&separator);
    m.extend_from_slice(&struct_hash);
    keccak256(&m)
}

/// The address whose key made `signature` (65 bytes `r ‖ s ‖ v`, `v` 27/28 or 0/1) of
/// `digest`; `None` for a malformed or non-canonical (high-s) signature.
pub fn recover_signer(digest: &[u8; 32], signature: &[u8]) -> Option<[u8; 20]> {
    if signature.len() != 65 {
        return None;
    }
    let sig = Signature::from_slice(&signature[..64]).ok()?;
    // Ethereum (EIP-2) accepts only low-s signatures; so do token contracts.
    if sig.normalize_s() != sig {
        return None;
    }
    let v = match signature[64] {
        27 | 28 => signature[64] - 27,
        0 | 1 => signature[64],
        _ => return None,
    };
    let recovery = RecoveryId::from_byte(v)?;
    let key = VerifyingKey::recover_from_prehash(digest, &sig, recovery).ok()?;
    let point = key.to_sec1_point(false);
    let hash = keccak256(&point.as_bytes()[1..]);
    hash[12..].try_into().ok()
}

/// Keccak-256 (Ethereum's, not SHA3-256).
pub fn keccak256(data: &[u8]) -> [u8; 32] {
    Keccak256::digest(data).into()
}

fn word_u128(n: u128) -> [u8; 32] {
    let mut w = [0u8; 32];
    w[16..].copy_from_slice(&n.to_be_bytes());
    w
}

fn word_address(a: &[u8; 20]) -> [u8; 32] {
    let mut w = [0u8; 32];
    w[12..].copy_from_slice(a);
    w
}

/// Decimal text of an unsigned integer (at most 2^128 - 1: amounts and times fit).
fn parse_uint(text: &str) -> Option<u128> {
    (!text.is_empty() && text.len() <= 39 && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

/// `0x`-prefixed hex bytes.
pub fn parse_hex(text: &str) -> Option<Vec<u8>> {
    let digits = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))?;
    if !digits.len().is_multiple_of(2) || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    (0..digits.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(digits.get(i..i + 2)?, 16).ok())
        .collect()
}

/// A 20-byte address (any case; the EIP-55 checksum is not required).
pub fn parse_address(text: &str) -> Option<[u8; 20]> {
    parse_hex(text)?.try_into().ok()
}

/// Lowercase 0x hex.
pub fn hex_of(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(2 + bytes.len() * 2);
    out.push_str("0x");
    for b in bytes {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

#[cfg(test)]
mod tests;
