// TerminalSafe on each class of byte a terminal could act on, and on the
// text it must leave alone.
#include "app/cli/terminal_text.h"

#include <gtest/gtest.h>

#include <string>

namespace fathom::cli {
namespace {

TEST(TerminalSafe, PlainTextAndUtf8PassThrough) {
  EXPECT_EQ(TerminalSafe("trace.pftrace"), "trace.pftrace");
  EXPECT_EQ(TerminalSafe("C:\\traces\\a b"), "C:\\traces\\a b");
  // 2-, 3- and 4-byte sequences, the last code points before each limit.
  EXPECT_EQ(TerminalSafe("é — 日本 😀 \xc2\xa0 \xef\xbf\xbd \xf4\x8f\xbf\xbf"),
            "é — 日本 😀 \xc2\xa0 \xef\xbf\xbd \xf4\x8f\xbf\xbf");
  EXPECT_EQ(TerminalSafe(""), "");
}

TEST(TerminalSafe, C0ControlsAndDel) {
  EXPECT_EQ(TerminalSafe("evil\x1b]0;TITLE\x07\x1b[2J"), "evil\\x1b]0;TITLE\\x07\\x1b[2J");
  EXPECT_EQ(TerminalSafe(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(TerminalSafe("a\x7f"
                         "b"),
            "a\\x7fb");
  EXPECT_EQ(TerminalSafe("\x08\x0b\x0c\x1f"), "\\x08\\x0b\\x0c\\x1f");
  EXPECT_EQ(TerminalSafe("one\rtwo"), "one\\rtwo");  // \r would overwrite the line
}

TEST(TerminalSafe, NewlinesAndTabsByMode) {
  EXPECT_EQ(TerminalSafe("a\nb\tc"), "a\\nb\\tc");
  EXPECT_EQ(TerminalSafe("a\nb\tc", Newlines::kKeep), "a\nb\tc");
  // Only \n and \t are kept: \r and ESC are escaped in multi-line text too.
  EXPECT_EQ(TerminalSafe("a\r\n\x1b[1A", Newlines::kKeep), "a\\r\n\\x1b[1A");
}

TEST(TerminalSafe, C1Controls) {
  // U+0080, U+009B (CSI, an ESC [ on some terminals), U+009F; U+00A0 is not one.
  EXPECT_EQ(TerminalSafe("\xc2\x80|\xc2\x9b"
                         "31m|\xc2\x9f|\xc2\xa0"),
            "\\u0080|\\u009b31m|\\u009f|\xc2\xa0");
}

TEST(TerminalSafe, InvalidUtf8BecomesBytes) {
  EXPECT_EQ(TerminalSafe("\x9b"
                         "31m"),
            "\\x9b31m");                                                // a raw C1 byte, not UTF-8
  EXPECT_EQ(TerminalSafe("\x80\xbf"), "\\x80\\xbf");                    // stray continuation bytes
  EXPECT_EQ(TerminalSafe("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(TerminalSafe("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");           // overlong, 3 bytes
  EXPECT_EQ(TerminalSafe("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a UTF-16 surrogate
  EXPECT_EQ(TerminalSafe("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
  EXPECT_EQ(TerminalSafe("\xff\xfe"), "\\xff\\xfe");
  // A truncated sequence: its bytes are escaped, the text after it survives.
  EXPECT_EQ(TerminalSafe("\xe6\x97"
                         "ok"),
            "\\xe6\\x97ok");
  EXPECT_EQ(TerminalSafe("ab\xf0\x9f\x98"), "ab\\xf0\\x9f\\x98");
}

TEST(TerminalSafe, OutputHasNoControlBytes) {
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  const std::string out = TerminalSafe(all + all);
  for (unsigned char c : out) {
    EXPECT_TRUE(c >= 0x20 && c != 0x7f) << "byte " << int(c) << " reaches the terminal";
  }
}

}  // namespace
}  // namespace fathom::cli
