"""Front ends: the CLI, Telegram and Discord adapters. They translate and render, nothing else."""
