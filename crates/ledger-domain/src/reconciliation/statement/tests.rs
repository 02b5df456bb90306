//! Statement parsing: OFX in both syntaxes, CSV mappings, dates, and malformed input.

use time::macros::date;

use super::*;

const OFX_SGML: &str = "OFXHEADER:100\r\nDATA:OFXSGML\r\nVERSION:102\r\nSECURITY:NONE\r\nENCODING:USASCII\r\nCHARSET:1252\r\nCOMPRESSION:NONE\r\nOLDFILEUID:NONE\r\nNEWFILEUID:NONE\r\n\r\n<OFX>\r\n<SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS><DTSERVER>20260201120000<LANGUAGE>ENG</SONRS></SIGNONMSGSRSV1>\r\n<BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STATUS><CODE>0<SEVERITY>INFO</STATUS>\r\n<STMTRS><CURDEF>USD<BANKACCTFROM><BANKID>121000248<ACCTID>000123456<ACCTTYPE>CHECKING</BANKACCTFROM>\r\n<BANKTRANLIST><DTSTART>20260101<DTEND>20260131\r\n<STMTTRN><TRNTYPE>CREDIT<DTPOSTED>20260105120000.000[-5:EST]<TRNAMT>1500.00<FITID>2026010501<NAME>ACME PAYROLL<MEMO>Salary January</STMTTRN>\r\n<STMTTRN><TRNTYPE>CHECK<DTPOSTED>20260112<TRNAMT>-75.5<FITID>2026011202<CHECKNUM>1001<NAME>City Water &amp; Power</STMTTRN>\r\n</BANKTRANLIST><LEDGERBAL><BALAMT>1424.50<DTASOF>20260131</LEDGERBAL></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\r\n";

const OFX_XML: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<?OFX OFXHEADER="200" VERSION="220" SECURITY="NONE" OLDFILEUID="NONE" NEWFILEUID="NONE"?>
<OFX>
  <BANKMSGSRSV1><STMTTRNRS><STMTRS>
    <CURDEF>EUR</CURDEF>
    <BANKTRANLIST>
      <STMTTRN>
        <TRNTYPE>DEBIT</TRNTYPE>
        <DTPOSTED>20260203</DTPOSTED>
        <TRNAMT>-12,40</TRNAMT>
        <FITID>A-1</FITID>
        <NAME>Café Central</NAME>
        <MEMO>Card 1234</MEMO>
      </STMTTRN>
      <STMTTRN>
        <TRNTYPE>CREDIT</TRNTYPE>
        <DTPOSTED>20260204100000</DTPOSTED>
        <TRNAMT>250.00</TRNAMT>
        <FITID>A-2</FITID>
        <MEMO>Refund</MEMO>
      </STMTTRN>
    </BANKTRANLIST>
  </STMTRS></STMTTRNRS></BANKMSGSRSV1>
</OFX>"#;

fn ofx(content: &str) -> Result<ParsedStatement, StatementError> {
    parse(content, sniff(content), &CsvMapping::default(), 2)
}

#[test]
fn sniffs_ofx_and_csv() {
    assert_eq!(sniff(OFX_SGML), StatementFormat::Ofx);
    assert_eq!(sniff(&format!("\u{feff}  {OFX_XML}")), StatementFormat::Ofx);
    assert_eq!(sniff("<OFX><STMTTRN>"), StatementFormat::Ofx);
    assert_eq!(sniff("date,amount\n2026-01-01,1"), StatementFormat::Csv);
    assert_eq!(
        sniff("<?xml version=\"1.0\"?><html/>"),
        StatementFormat::Csv
    );
}

#[test]
fn reads_sgml_ofx() {
    let s = ofx(OFX_SGML).expect("parses");
    assert_eq!(s.format, StatementFormat::Ofx);
    assert_eq!(s.facts.currency.as_deref(), Some("USD"));
    assert_eq!(
        s.lines,
        vec![
            ParsedLine {
                date: date!(2026 - 01 - 05),
                amount: 15_000_000,
                description: "ACME PAYROLL Salary January".into(),
                reference: Some("2026010501".into()),
            },
            ParsedLine {
                date: date!(2026 - 01 - 12),
                amount: -755_000,
                description: "City Water & Power".into(),
                reference: Some("2026011202".into()),
            },
        ]
    );
}

#[test]
fn reads_xml_ofx() {
    let s = ofx(OFX_XML).expect("parses");
    assert_eq!(s.facts.currency.as_deref(), Some("EUR"));
    assert_eq!(s.lines.len(), 2);
    assert_eq!(s.lines[0].amount, -124_000);
    assert_eq!(s.lines[0].description, "Café Central Card 1234");
    assert_eq!(s.lines[1].date, date!(2026 - 02 - 04));
    assert_eq!(s.lines[1].description, "Refund");
    assert_eq!(s.lines[1].reference.as_deref(), Some("A-2"));
}

#[test]
fn malformed_ofx_is_refused_with_a_reason() {
    let cases = [
        "OFXHEADER:100\n\n<OFX><STMTTRN><DTPOSTED>20260101<TRNAMT>1.00",
        "OFXHEADER:100\n\n<OFX><STMTTRN><TRNAMT>1.00</STMTTRN></OFX>",
        "OFXHEADER:100\n\n<OFX><STMTTRN><DTPOSTED>2026XX01<TRNAMT>1.00</STMTTRN></OFX>",
        "OFXHEADER:100\n\n<OFX><STMTTRN><DTPOSTED>20260101<TRNAMT>ten</STMTTRN></OFX>",
        "OFXHEADER:100\n\n<OFX><STMTTRN><DTPOSTED>20260101<TRNAMT>1.001</STMTTRN></OFX>",
        "OFXHEADER:100\n\n<OFX><STMTTRN><DTPOSTED>20261301<TRNAMT>1</STMTTRN></OFX>",
        "OFXHEADER:100\n\n<OFX></STMTTRN></OFX>",
        "OFXHEADER:100\n\n<OFX><STMTTRN <DTPOSTED",
        "OFXHEADER:100\n\nno body at all",
        "OFXHEADER:100\n\n<OFX><BANKTRANLIST></BANKTRANLIST></OFX>",
    ];
    for case in cases {
        assert!(ofx(case).is_err(), "{case}");
    }
    assert_eq!(
        ofx("<OFX></OFX>").expect_err("empty"),
        StatementError::NoTransactions
    );
}

#[test]
fn reads_csv_with_a_signed_amount_column() {
    let csv = "Date,Amount,Description,Ref\n2026-01-05,1500.00,\"ACME, Inc payroll\",P-1\n2026-01-12,-75.50,Water,\n";
    let mapping = CsvMapping {
        reference: Some(Column::Name("ref".into())),
        ..CsvMapping::default()
    };
    let s = parse(csv, StatementFormat::Csv, &mapping, 2).expect("parses");
    assert_eq!(s.lines.len(), 2);
    assert_eq!(s.lines[0].description, "ACME, Inc payroll");
    assert_eq!(s.lines[0].reference.as_deref(), Some("P-1"));
    assert_eq!(s.lines[1].amount, -755_000);
    assert_eq!(s.lines[1].reference, None);
}

#[test]
fn reads_csv_with_debit_and_credit_columns_by_number() {
    let csv = "31.01.2026;Miete;1.200,00;\r\n01.02.2026;Zins;;0,35\r\n02.02.2026;\"Quote \"\"x\"\"\";(3,00);\r\n";
    let mapping = CsvMapping {
        date: Column::Number(1),
        amount: None,
        debit: Some(Column::Number(3)),
        credit: Some(Column::Number(4)),
        description: Some(Column::Number(2)),
        reference: None,
        date_format: DateFormat::DayMonthYearDots,
        has_header: false,
        delimiter: ';',
        decimal_separator: ',',
    };
    let s = parse(csv, StatementFormat::Csv, &mapping, 2).expect("parses");
    let amounts: Vec<i64> = s.lines.iter().map(|l| l.amount).collect();
    assert_eq!(amounts, vec![-12_000_000, 3_500, -30_000]);
    assert_eq!(s.lines[2].description, "Quote \"x\"");
    assert_eq!(s.lines[0].date, date!(2026 - 01 - 31));
}

#[test]
fn date_formats() {
    assert_eq!(
        DateFormat::MonthDayYear.read("01/31/2026"),
        Some(date!(2026 - 01 - 31))
    );
    assert_eq!(
        DateFormat::DayMonthYear.read("31/01/2026"),
        Some(date!(2026 - 01 - 31))
    );
    assert_eq!(
        DateFormat::Compact.read("20260131"),
        Some(date!(2026 - 01 - 31))
    );
    assert_eq!(DateFormat::Iso.read("2026-02-30"), None);
    assert_eq!(DateFormat::Iso.read("26-01-31"), None);
    assert_eq!(DateFormat::MonthDayYear.read("31/01/2026"), None);
    assert_eq!(
        DateFormat::parse("mm/dd/yyyy"),
        Some(DateFormat::MonthDayYear)
    );
    assert_eq!(DateFormat::parse("%Y"), None);
}

#[test]
fn malformed_csv_is_refused_with_its_line() {
    let mapping = CsvMapping::default();
    let bad_date = "date,amount,description\n2026-01-01,1.00,ok\n01/02/2026,2.00,x\n";
    assert_eq!(
        parse(bad_date, StatementFormat::Csv, &mapping, 2).expect_err("date"),
        StatementError::Line {
            line: 3,
            message: "'01/02/2026' is not a date in the mapped format".into()
        }
    );
    let bad_amount = "date,amount,description\n2026-01-01,abc,x\n";
    assert!(matches!(
        parse(bad_amount, StatementFormat::Csv, &mapping, 2),
        Err(StatementError::Line { line: 2, .. })
    ));
    let unclosed = "date,amount,description\n2026-01-01,1.00,\"open\n";
    assert!(parse(unclosed, StatementFormat::Csv, &mapping, 2).is_err());
    let no_column = "when,amount\n2026-01-01,1.00\n";
    assert!(matches!(
        parse(no_column, StatementFormat::Csv, &mapping, 2),
        Err(StatementError::Mapping(_))
    ));
    let header_only = "date,amount,description\n";
    assert_eq!(
        parse(header_only, StatementFormat::Csv, &mapping, 2).expect_err("empty"),
        StatementError::NoTransactions
    );
    assert_eq!(
        parse("  \n", StatementFormat::Csv, &mapping, 2).expect_err("empty"),
        StatementError::Empty
    );
    let both = CsvMapping {
        debit: Some(Column::Number(2)),
        ..CsvMapping::default()
    };
    assert!(parse(bad_date, StatementFormat::Csv, &both, 2).is_err());
    let zero = CsvMapping {
        date: Column::Number(0),
        ..CsvMapping::default()
    };
    assert!(parse(bad_date, StatementFormat::Csv, &zero, 2).is_err());
}

#[test]
fn arbitrary_text_never_panics() {
    let samples = [
        "<",
        ">",
        "<<<>>>",
        "<OFX>",
        "<OFX><STMTTRN>",
        "\"",
        "\"\"\"",
        ",,,\n,,,",
        "é,ü\n\u{0}",
        "<OFX><STMTTRN><DTPOSTED>2026<TRNAMT>-</STMTTRN>",
    ];
    for s in samples {
        let _ = parse(s, sniff(s), &CsvMapping::default(), 2);
        let _ = parse(s, StatementFormat::Ofx, &CsvMapping::default(), 0);
    }
}
