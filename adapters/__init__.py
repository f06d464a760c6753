"""Platform adapters: each turns a platform's events into core calls and neutral messages into native UI."""
