//! URLs kept as clients sent them: the checks that make a URL read alike by every parser.

/// A host name of RFC 1123 labels (an international name arrives as punycode), one
/// trailing dot allowed: the URL parser lets through characters such as `*`, `_` or `[`
/// that DNS does not, and that other URL parsers refuse.
pub fn is_host_name(name: &str) -> bool {
    let label_ok = |l: &str| {
        !l.is_empty()
            && l.len() <= 63
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    };
    let name = name.strip_suffix('.').unwrap_or(name);
    !name.is_empty() && name.len() <= 253 && name.split('.').all(label_ok)
}

/// An absolute http or https URL that every URL parser reads alike, for URLs kept as
/// the client sent them (a contact's website, a purchase's return URLs): no whitespace,
/// control character or backslash (WHATWG parsing drops tabs and newlines and reads `\`
/// as `/`; other parsers refuse them or see another host), and a host that is an IP
/// address or an [`is_host_name`] host name.
pub fn is_portable_http_url(text: &str) -> bool {
    !text
        .chars()
        .any(|c| c.is_whitespace() || c.is_control() || c == '\\')
        && url::Url::parse(text).ok().is_some_and(|u| {
            matches!(u.scheme(), "http" | "https")
                && match u.host() {
                    Some(url::Host::Domain(name)) => is_host_name(name),
                    Some(url::Host::Ipv4(_) | url::Host::Ipv6(_)) => true,
                    None => false,
                }
        })
}
