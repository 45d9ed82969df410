"""Moderation: reports on users' posts, and the queue where instructors and admins act on them."""
