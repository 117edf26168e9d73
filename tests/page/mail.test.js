import assert from "node:assert/strict";
import { test } from "node:test";

import { sizeWords } from "../../web/cards/mail.js";

test("an attachment's size reads in bytes, kilobytes or megabytes", () => {
  assert.equal(sizeWords(141), "141 bytes");
  assert.equal(sizeWords(48_213), "48 KB");
  assert.equal(sizeWords(2_400_000), "2.4 MB");
});
