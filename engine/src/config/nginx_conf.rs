//! nginx's configuration syntax: directives of words ending in `;`, blocks
//! in braces, `#` comments, words in quotes (`"..."`, `'...'`, with `\`
//! escaping the next character). Read into a tree of directives, each with
//! its line, as nginx's own reader does (`ngx_conf_read_token`); what it
//! means is `nginx.rs`'s business.

/// A directive: its name, its arguments, its line, and its block if it
/// opens one.
#[derive(Clone, Debug, PartialEq)]
pub struct Directive {
    pub name: String,
    pub args: Vec<String>,
    pub line: usize,
    pub block: Option<Vec<Directive>>,
}

/// Where the text cannot be read, and what was expected there.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {expected}")]
pub struct SyntaxError {
    pub line: usize,
    pub expected: String,
}

#[derive(Debug, PartialEq)]
enum Token {
    Word(String),
    Semicolon,
    Open,
    Close,
}

fn tokens(text: &str) -> Result<Vec<(Token, usize)>, SyntaxError> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    let mut line = 1;
    while let Some(&c) = chars.peek() {
        match c {
            '\n' => {
                line += 1;
                chars.next();
            }
            c if c.is_whitespace() => {
                chars.next();
            }
            '#' => {
                while chars.peek().is_some_and(|&c| c != '\n') {
                    chars.next();
                }
            }
            ';' | '{' | '}' => {
                chars.next();
                out.push((
                    match c {
                        ';' => Token::Semicolon,
                        '{' => Token::Open,
                        _ => Token::Close,
                    },
                    line,
                ));
            }
            '"' | '\'' => {
                let (quote, start) = (c, line);
                chars.next();
                let mut word = String::new();
                loop {
                    match chars.next() {
                        None => return Err(SyntaxError { line: start, expected: format!("a closing {quote} for the quoted word opened here") }),
                        Some(c) if c == quote => break,
                        Some('\\') => match chars.next() {
                            Some(next) => word.push(next),
                            None => return Err(SyntaxError { line: start, expected: format!("a closing {quote} for the quoted word opened here") }),
                        },
                        Some(c) => {
                            if c == '\n' {
                                line += 1;
                            }
                            word.push(c);
                        }
                    }
                }
                out.push((Token::Word(word), start));
            }
            _ => {
                let mut word = String::new();
                while let Some(&c) = chars.peek() {
                    if c.is_whitespace() || matches!(c, ';' | '{' | '}') {
                        break;
                    }
                    word.push(c);
                    chars.next();
                }
                out.push((Token::Word(word), line));
            }
        }
    }
    Ok(out)
}

/// The deepest blocks are nested in a configuration read: nginx's own go a
/// few deep (`http`, `server`, `location`, `if`).
pub const MAX_DEPTH: usize = 64;

/// Reads a configuration's text into its directives.
pub fn parse(text: &str) -> Result<Vec<Directive>, SyntaxError> {
    let tokens = tokens(text)?;
    let mut at = 0;
    let top = block(&tokens, &mut at, None, 0)?;
    Ok(top)
}

/// The directives up to the `}` closing a block opened at `opened` (or the
/// end of the text, at the top), `depth` blocks deep.
fn block(tokens: &[(Token, usize)], at: &mut usize, opened: Option<usize>, depth: usize) -> Result<Vec<Directive>, SyntaxError> {
    if depth > MAX_DEPTH {
        let line = opened.unwrap_or(1);
        return Err(SyntaxError { line, expected: format!("blocks nested at most {MAX_DEPTH} deep") });
    }
    let mut directives = Vec::new();
    loop {
        let Some((token, line)) = tokens.get(*at) else {
            return match opened {
                Some(line) => Err(SyntaxError { line, expected: "a } closing the block opened here".into() }),
                None => Ok(directives),
            };
        };
        *at += 1;
        let name = match token {
            Token::Close if opened.is_some() => return Ok(directives),
            Token::Close => return Err(SyntaxError { line: *line, expected: "a directive, not a } that closes no block".into() }),
            Token::Semicolon => return Err(SyntaxError { line: *line, expected: "a directive before this ;".into() }),
            Token::Open => return Err(SyntaxError { line: *line, expected: "a directive naming this block".into() }),
            Token::Word(w) => w.clone(),
        };
        let line = *line;
        let mut args = Vec::new();
        loop {
            match tokens.get(*at) {
                Some((Token::Word(w), _)) => {
                    args.push(w.clone());
                    *at += 1;
                }
                Some((Token::Semicolon, _)) => {
                    *at += 1;
                    directives.push(Directive { name, args, line, block: None });
                    break;
                }
                Some((Token::Open, open_line)) => {
                    let open_line = *open_line;
                    *at += 1;
                    let inner = block(tokens, at, Some(open_line), depth + 1)?;
                    directives.push(Directive { name, args, line, block: Some(inner) });
                    break;
                }
                Some((Token::Close, close_line)) => {
                    return Err(SyntaxError { line: *close_line, expected: format!("a ; ending \"{name}\" (line {line}) before this }}") })
                }
                None => return Err(SyntaxError { line, expected: format!("a ; ending \"{name}\"") }),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives_blocks_quotes_and_comments_read_with_their_lines() {
        let text = "# a comment\nhttp {\n  limit_req_zone $binary_remote_addr zone=one:10m rate=10r/s; # two\n  server {\n    location \"/a b\" { limit_req zone=one burst=5 'nodelay'; }\n  }\n}\n";
        let top = parse(text).unwrap();
        assert_eq!(top.len(), 1);
        let http = &top[0];
        assert_eq!((http.name.as_str(), http.line), ("http", 2));
        let inner = http.block.as_ref().unwrap();
        assert_eq!(inner[0].args, ["$binary_remote_addr", "zone=one:10m", "rate=10r/s"]);
        assert_eq!(inner[0].line, 3);
        let location = &inner[1].block.as_ref().unwrap()[0];
        assert_eq!((location.args[0].as_str(), location.line), ("/a b", 5));
        assert_eq!(location.block.as_ref().unwrap()[0].args, ["zone=one", "burst=5", "nodelay"]);
    }

    #[test]
    fn what_cannot_be_read_names_its_line_and_what_was_expected() {
        let err = |text: &str| parse(text).unwrap_err().to_string();
        assert_eq!(err("http {\n  limit_req zone=one\n}\n"), "line 3: a ; ending \"limit_req\" (line 2) before this }");
        assert_eq!(err("http {\n  server {\n"), "line 2: a } closing the block opened here");
        assert_eq!(err("}\n"), "line 1: a directive, not a } that closes no block");
        assert_eq!(err("\n\nlisten \"80;\n"), "line 3: a closing \" for the quoted word opened here");
        assert_eq!(err("worker_processes 1"), "line 1: a ; ending \"worker_processes\"");
        assert_eq!(err("a;\n;"), "line 2: a directive before this ;");
        assert_eq!(err(&"a {".repeat(100_000)), "line 1: blocks nested at most 64 deep");
    }
}
