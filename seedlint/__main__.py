from seedlint.cli import main

raise SystemExit(main())
