"""LLM players and judges through any OpenAI-compatible endpoint."""
