"""The daily question in groups: subscriptions, posts, answers, reveals and their views."""
