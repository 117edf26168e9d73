import assert from "node:assert/strict";
import { test } from "node:test";

import { lookalike } from "../../web/lookalike.js";

test("a plain Latin address is not flagged", () => {
  assert.equal(lookalike("ana.silva@example.com"), null);
});

test("a part mixing Cyrillic and Latin letters is named, with where it is", () => {
  // "ex\u0430mple": the third letter is Cyrillic а (U+0430).
  assert.equal(
    lookalike("ana@ex\u0430mple.com"),
    "ana@ex\u0430mple.com mixes Cyrillic and Latin letters in its domain: it may imitate another address.",
  );
  assert.match(lookalike("\u0430na@example.com"), /mixes Cyrillic and Latin letters before the @/);
});

test("a part written wholly in Cyrillic letters that look Latin is named", () => {
  // "аррӏе": apple in Cyrillic letters (а р р ӏ е).
  assert.equal(
    lookalike("\u0430\u0440\u0440\u04cf\u0435@example.com"),
    "\u0430\u0440\u0440\u04cf\u0435@example.com is written in Cyrillic letters that look Latin before the @: it may imitate another address.",
  );
});

test("a domain the browser wrote as xn-- is read as its letters and named both ways", () => {
  // RFC 3492: xn--80ak6aa92e is "аррӏе", the Cyrillic apple.
  assert.equal(
    lookalike("me@xn--80ak6aa92e.com"),
    "me@xn--80ak6aa92e.com (me@\u0430\u0440\u0440\u04cf\u0435.com) is written in Cyrillic letters that look Latin in its domain: it may imitate another address.",
  );
});

test("a label that only looks like punycode is read as it is", () => {
  assert.equal(lookalike("me@xn--.com"), null);
});

test("Cyrillic that does not look Latin, and Japanese written with Latin, are not flagged", () => {
  assert.equal(lookalike("\u0434\u0436\u043e\u043d@example.ru"), null); // "джон": д and ж look like no Latin letter
  assert.equal(lookalike("\u7530\u4e2dtaro@example.jp"), null); // 田中taro: Han with Latin, as Japanese is written
});

test("Greek mixed with Latin is named", () => {
  assert.match(lookalike("p\u03bfst@example.com"), /mixes Greek and Latin letters before the @/); // ο, Greek omicron
});
