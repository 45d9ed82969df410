"""The LTI 1.3 vocabulary in one place: claim names, message types, roles, scopes and media types
(IMS LTI 1.3 core, Deep Linking 2.0, AGS 2.0, NRPS 2.0). Builds nothing when imported."""

from __future__ import annotations

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
MESSAGE_TYPE = LTI + "message_type"
VERSION = LTI + "version"
DEPLOYMENT_ID = LTI + "deployment_id"
TARGET_LINK_URI = LTI + "target_link_uri"
RESOURCE_LINK = LTI + "resource_link"
ROLES = LTI + "roles"
CONTEXT = LTI + "context"
CUSTOM = LTI + "custom"
DL_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
DL_CONTENT_ITEMS = "https://purl.imsglobal.org/spec/lti-dl/claim/content_items"
DL_DATA = "https://purl.imsglobal.org/spec/lti-dl/claim/data"
AGS_ENDPOINT = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"

LTI_VERSION = "1.3.0"
RESOURCE_LINK_REQUEST = "LtiResourceLinkRequest"
DEEP_LINKING_REQUEST = "LtiDeepLinkingRequest"
DEEP_LINKING_RESPONSE = "LtiDeepLinkingResponse"
MESSAGE_TYPES = (RESOURCE_LINK_REQUEST, DEEP_LINKING_REQUEST)

ROLE_INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
ROLE_LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
# Context roles that teach (TAs and content developers count as instructors here).
TEACHING_ROLES = (
    ROLE_INSTRUCTOR,
    "http://purl.imsglobal.org/vocab/lis/v2/membership#ContentDeveloper",
    "http://purl.imsglobal.org/vocab/lis/v2/membership#Administrator",
    "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant",
    "Instructor",  # short forms some platforms send
)

SCOPE_LINEITEM = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
SCOPE_SCORE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
SCOPE_RESULT_READONLY = "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly"
SCOPE_NRPS = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
TOOL_SCOPES = (SCOPE_LINEITEM, SCOPE_SCORE, SCOPE_RESULT_READONLY, SCOPE_NRPS)

LINEITEM_MEDIA = "application/vnd.ims.lis.v2.lineitem+json"
LINEITEMS_MEDIA = "application/vnd.ims.lis.v2.lineitemcontainer+json"
SCORE_MEDIA = "application/vnd.ims.lis.v1.score+json"
MEMBERSHIPS_MEDIA = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


def teaches(roles: list[str]) -> bool:
    """Whether context roles include a teaching one (Instructor → course instructor)."""
    return any(role in TEACHING_ROLES for role in roles)


def learns(roles: list[str]) -> bool:
    return any(role == ROLE_LEARNER or role.endswith("#Learner") or role == "Learner" for role in roles)


LAUNCH_PRESENTATION = "https://purl.imsglobal.org/spec/lti/claim/launch_presentation"
