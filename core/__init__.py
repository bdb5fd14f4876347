"""Transport-neutral logic of Biographer: never imports telegram, discord or SQL."""
