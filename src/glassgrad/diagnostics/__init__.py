"""The glass: where graph nodes came from, what they hold, and why an error fired."""
