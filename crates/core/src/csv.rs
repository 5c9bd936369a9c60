//! CSV fields as RFC 4180 writes them, for every CSV ango prints.

/// `s` as one CSV field: quoted, with its quotes doubled, when it holds a
/// comma, a quote or a line break; as it is otherwise.
pub fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn fields_are_quoted_only_when_they_must_be() {
        assert_eq!(super::field("evp"), "evp");
        assert_eq!(super::field("a,b"), "\"a,b\"");
        assert_eq!(super::field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(super::field("x\r\ny"), "\"x\r\ny\"");
    }
}
