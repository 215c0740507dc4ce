"""Ways to show sessions and events: the JSON shape (records), the terminal (text), HTML."""
