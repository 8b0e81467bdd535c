"""LLM clients, prompt rendering and lenient parsing of replies."""
