"""Roll outcomes with exact probabilities, their legal set-asides, and the flat TurnModel."""
