"""Courses: classes that run on the problem bank (enrolment, assignments, scores, gradebook, regrade)."""
