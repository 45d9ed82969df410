"""The tool's own RSA key pairs: the newest signs (deep-linking responses, token assertions), and
every key that may still be checked is published at ``/lti/jwks``.

Rotation never breaks a launch or a passback in flight: a rotated-out key stays published for a
grace period (default a week) after the new one starts signing, so a platform that cached our
JWKS, or holds a message signed a moment before the rotation, still finds its ``kid``. Private
keys are sealed under the site's secret key (``app/kit/sealing.py``).
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timedelta

from joserfc.jwk import RSAKey
from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from app.kit.db import Database, utcnow
from app.kit.sealing import seal, unseal
from app.lti.models import LtiToolKey

PURPOSE = "lti-tool-key"
DEFAULT_GRACE = timedelta(days=7)
ALGORITHM = "RS256"


def _new_key(session: Session, secret_key: str, now: datetime) -> LtiToolKey:
    kid = f"td-{now:%Y%m%d}-{uuid.uuid4().hex[:12]}"
    key = RSAKey.generate_key(2048, parameters={"kid": kid, "use": "sig", "alg": ALGORITHM})
    private = json.dumps(key.as_dict(private=True)).encode()
    row = LtiToolKey(
        kid=kid,
        private_jwk=seal(secret_key, PURPOSE, private, kid.encode()),
        public_jwk=dict(key.as_dict(private=False)),
        created_at=now,
    )
    session.add(row)
    session.flush()
    return row


def current(session: Session, secret_key: str, now: datetime | None = None) -> LtiToolKey:
    """The signing key: the newest unretired one, made on first use."""
    row = session.scalars(
        select(LtiToolKey).where(LtiToolKey.retired_at.is_(None)).order_by(LtiToolKey.id.desc()).limit(1)
    ).first()
    return row or _new_key(session, secret_key, now or utcnow())


def ensure(db: Database, secret_key: str) -> None:
    """Make the first signing key in a transaction of its own (at start-up): a key made inside a
    request's transaction would sign messages the platform cannot check yet (it fetches our JWKS
    while that transaction is still open)."""
    with db.transaction() as session:
        current(session, secret_key)


def private_key(row: LtiToolKey, secret_key: str) -> RSAKey:
    data = json.loads(unseal(secret_key, PURPOSE, row.private_jwk, row.kid.encode()))
    return RSAKey.import_key(data)


def signing_key(session: Session, secret_key: str) -> RSAKey:
    return private_key(current(session, secret_key), secret_key)


def rotate(
    session: Session, secret_key: str, grace: timedelta = DEFAULT_GRACE, now: datetime | None = None
) -> LtiToolKey:
    """A new signing key; the ones before it stay published for ``grace``, then drop out."""
    now = now or utcnow()
    for row in session.scalars(select(LtiToolKey).where(LtiToolKey.retired_at.is_(None))):
        row.retired_at = now
        row.published_until = now + grace
    session.flush()
    return _new_key(session, secret_key, now)


def published(
    session: Session, secret_key: str, now: datetime | None = None
) -> dict[str, list[dict[str, str]]]:
    """The JWKS: the signing key and every retired key still inside its grace period."""
    now = now or utcnow()
    current(session, secret_key, now)  # a fresh site publishes its first key at once
    rows = session.scalars(
        select(LtiToolKey)
        .where(or_(LtiToolKey.retired_at.is_(None), LtiToolKey.published_until > now))
        .order_by(LtiToolKey.id.desc())
    )
    return {"keys": [dict(row.public_jwk) for row in rows]}
