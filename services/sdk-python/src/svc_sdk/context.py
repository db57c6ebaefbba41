"""Attribute names and the context keys the SDK's processor copies onto every span
started under them (``end_user(...)``, ``project(...)``)."""

from opentelemetry.context import create_key

END_USER_ATTRIBUTE = "svc.end_user"
PROJECT_ATTRIBUTE = "svc.project_id"

END_USER_KEY = create_key("svc_sdk end user")
PROJECT_KEY = create_key("svc_sdk project")
