"""The certificate an administrator uploads to Google for a service account key held in AWS KMS.

Google takes a user-managed service account key as "an RSA public key that is wrapped in an
X.509 v3 certificate" (https://cloud.google.com/iam/docs/keys-upload). The private key stays in
KMS, so no tool that wants the private key (openssl, a certificate builder) can sign the
certificate; this module builds the certificate's DER around the public key KMS gives
(``GetPublicKey``: a DER SubjectPublicKeyInfo) and has KMS sign it (``Sign``,
RSASSA_PKCS1_V1_5_SHA_256), with a generic subject, as Google asks: no private information.

    python -m multitool.local.deployed.google_certificate <kms-key-id> [--days 365] > google-key.pem

then upload ``google-key.pem`` in the Google Cloud console (the service account's Keys tab:
Add key, Upload existing key) or with ``gcloud iam service-accounts keys upload``.
"""

from __future__ import annotations

import argparse
import base64
import secrets
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mypy_boto3_kms import KMSClient

SUBJECT = "multitool Google Workspace delegation"
# sha256WithRSAEncryption (1.2.840.113549.1.1.11) with NULL parameters, DER.
_SHA256_WITH_RSA = bytes.fromhex("300d06092a864886f70d01010b0500")
_COMMON_NAME = bytes.fromhex("0603550403")  # OID 2.5.4.3


def _der(tag: int, content: bytes) -> bytes:
    size = len(content)
    if size < 0x80:
        return bytes([tag, size]) + content
    length = size.to_bytes((size.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(length)]) + length + content


def _sequence(*parts: bytes) -> bytes:
    return _der(0x30, b"".join(parts))


def _integer(value: int) -> bytes:
    raw = value.to_bytes(max(1, (value.bit_length() + 8) // 8), "big")  # a leading 0 keeps it positive
    return _der(0x02, raw)


def _name(common_name: str) -> bytes:
    attribute = _sequence(_COMMON_NAME, _der(0x0C, common_name.encode()))  # UTF8String
    return _sequence(_der(0x31, attribute))  # RDNSequence of one SET


def _time(moment: datetime) -> bytes:
    if moment.year < 2050:
        return _der(0x17, moment.strftime("%y%m%d%H%M%SZ").encode())  # UTCTime
    return _der(0x18, moment.strftime("%Y%m%d%H%M%SZ").encode())  # GeneralizedTime


def certificate_der(
    client: KMSClient, kms_key_id: str, *, days: int = 365, now: datetime | None = None
) -> bytes:
    """A self-signed X.509 v3 certificate for the KMS key's public key, signed by KMS."""
    public_key = client.get_public_key(KeyId=kms_key_id)["PublicKey"]  # DER SubjectPublicKeyInfo
    start = (now or datetime.now(UTC)).replace(microsecond=0)
    tbs = _sequence(
        _der(0xA0, _integer(2)),  # [0] EXPLICIT version: v3
        _integer(secrets.randbits(63) | 1),
        _SHA256_WITH_RSA,
        _name(SUBJECT),
        _sequence(_time(start), _time(start + timedelta(days=days))),
        _name(SUBJECT),
        public_key,
    )
    signature = client.sign(
        KeyId=kms_key_id, Message=tbs, MessageType="RAW", SigningAlgorithm="RSASSA_PKCS1_V1_5_SHA_256"
    )["Signature"]
    return _sequence(tbs, _SHA256_WITH_RSA, _der(0x03, b"\x00" + signature))


def certificate_pem(der: bytes) -> str:
    body = "\n".join(textwrap.wrap(base64.b64encode(der).decode("ascii"), 64))
    return f"-----BEGIN CERTIFICATE-----\n{body}\n-----END CERTIFICATE-----\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("kms_key_id", help="the KMS key (RSA_2048 or larger, SIGN_VERIFY): id, ARN or alias")
    parser.add_argument(
        "--days", type=int, default=365, help="how long the certificate is valid (default 365)"
    )
    options = parser.parse_args(argv)
    import boto3  # the administrator's own AWS credentials and region

    sys.stdout.write(
        certificate_pem(certificate_der(boto3.client("kms"), options.kms_key_id, days=options.days))
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
