"""What may leave the machine and what the owner can take away: disclosure policies, the export, backups.

May import the shared vocabulary and storage only."""
